package main

import "context"

func runEval(ctx context.Context, e *env, args []string) error {
	return usagef("eval: not yet available in this build")
}
