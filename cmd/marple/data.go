package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/marple-mln/marple/datasets"
)

const dataSynopsis = `list | check | fetch [-dir folder] [-from mirror] [set ...]

The real data sets that the papers' reproductions and the docs use (the
folder ../shared/data beside a clone; docs/data.md says where each comes
from). list prints every data set with its files and where they come from;
check compares a folder with the list (size and SHA-256 of every file,
no network); fetch downloads the files that are missing or differ, from
their public URL or, with -from, from a mirror of the whole folder (an
http(s):// or file:// URL or a directory), checks each against its
SHA-256 and writes it atomically. Naming data sets (imdb uw-cse ...)
restricts the command to them.`

func runData(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "data", dataSynopsis)
	var (
		dir     = fs.String("dir", "../shared/data", "the data folder")
		from    = fs.String("from", "", "fetch: a mirror of the whole data folder (http(s):// or file:// URL, or a directory); without it each file comes from its public URL")
		timeout = fs.Duration("timeout", 2*time.Minute, "fetch: give up on a file whose download takes longer")
	)
	if len(args) == 0 || args[0] != "list" && args[0] != "check" && args[0] != "fetch" {
		if len(args) > 0 && strings.HasPrefix(args[0], "-") {
			if err := parseFlags(fs, args); err != nil {
				return err // -h, or a flag error
			}
		}
		return usagef("give list, check or fetch")
	}
	verb := args[0]
	// The data sets named come after the verb, before or among the flags.
	var names []string
	rest := args[1:]
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			return usage(err)
		}
		rest = fs.Args()
		for len(rest) > 0 && (rest[0] == "" || rest[0][0] != '-') {
			names = append(names, rest[0])
			rest = rest[1:]
		}
	}
	if err := positive("timeout", timeout.Seconds()); err != nil {
		return err
	}
	files, err := datasets.Select(datasets.Files(), names)
	if err != nil {
		return usage(err)
	}
	switch verb {
	case "list":
		return listData(e, files)
	case "check":
		probs, err := datasets.Check(ctx, *dir, files)
		if err != nil {
			return fmt.Errorf("-dir: %w", err)
		}
		for _, p := range probs {
			fmt.Fprintf(e.stderr, "marple data: %s: %s\n", p.File.Path, p.What)
		}
		if len(probs) > 0 {
			return fmt.Errorf("%d of %d files missing or different in %s (marple data fetch gets them)", len(probs), len(files), *dir)
		}
		fmt.Fprintf(e.stdout, "marple data: %d files checked in %s, all as listed\n", len(files), *dir)
		return nil
	}
	st, err := datasets.Fetch(ctx, *dir, files, datasets.FetchOptions{From: *from, Timeout: *timeout,
		Progress: func(done, total int, f datasets.File) {
			fmt.Fprintf(e.stderr, "marple data: fetching %d/%d %s (%d bytes)\n", done+1, total, f.Path, f.Size)
		}})
	fmt.Fprintf(e.stdout, "marple data: %d files already in %s, %d fetched (%d bytes)\n", st.Present, *dir, st.Fetched, st.Bytes)
	return err
}

// listData prints the data sets, their files and their sources.
func listData(e *env, files []datasets.File) error {
	for _, f := range files {
		src := f.URL
		if src == "" {
			src = f.Note
		}
		fmt.Fprintf(e.stdout, "%s\t%d\t%s\t%s\n", f.Path, f.Size, f.SHA256, src)
	}
	return nil
}
