package main

import "context"

func runLearn(ctx context.Context, e *env, args []string) error {
	return usagef("learn: not yet available in this build")
}
