// Command gotest2junit turns `go test -json` output (stdin) into JUnit XML
// for CI, and echoes the tests' text output to stdout as `go test -v` would.
//
// Usage: go test -json ./... | gotest2junit -o report.xml
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
)

func main() {
	out := flag.String("o", "", "JUnit XML file to write (required)")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	report, err := read(os.Stdin, os.Stdout)
	if err != nil {
		log.Fatal(err)
	}
	file, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriter(file)
	if err := report.writeXML(w); err != nil {
		log.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := file.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "gotest2junit: %d tests, %d failures, %d skipped -> %s\n",
		report.count(statusAny), report.count(statusFail), report.count(statusSkip), *out)
}
