//go:build ignore

// buntdb-open times buntdb's own Open of a database file, the floor a restart of the
// sandbox over the same file is judged against (.ci/retained), and closes it again:
//
//	go run .ci/buntdb-open.go FILE      # prints the milliseconds the Open took
//
// A file of whole commands, as a stop leaves it, is read and not written.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/tidwall/buntdb"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run .ci/buntdb-open.go FILE")
		os.Exit(2)
	}
	start := time.Now()
	db, err := buntdb.Open(os.Args[1])
	took := time.Since(start)
	if err == nil {
		err = db.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "buntdb-open:", err)
		os.Exit(1)
	}
	fmt.Println(took.Milliseconds())
}
