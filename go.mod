module github.com/marple-mln/marple

go 1.26
