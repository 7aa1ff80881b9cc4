package main

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

const goTestJSON = `{"Action":"run","Package":"p/a","Test":"TestOK"}
{"Action":"output","Package":"p/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"pass","Package":"p/a","Test":"TestOK","Elapsed":0.5}
{"Action":"run","Package":"p/a","Test":"TestBad"}
{"Action":"output","Package":"p/a","Test":"TestBad","Output":"    a_test.go:9: got 1 <want> 2\n"}
{"Action":"fail","Package":"p/a","Test":"TestBad","Elapsed":0.1}
{"Action":"run","Package":"p/a","Test":"TestSkip"}
{"Action":"skip","Package":"p/a","Test":"TestSkip"}
{"Action":"fail","Package":"p/a","Elapsed":0.7}
# p/b
b.go:3: undefined: x
{"Action":"output","Package":"p/b","Output":"FAIL\tp/b [build failed]\n"}
{"Action":"fail","Package":"p/b","Elapsed":0}
{"Action":"output","Package":"p/c","Output":"?   \tp/c\t[no test files]\n"}
{"Action":"skip","Package":"p/c","Elapsed":0}
`

func TestReportCountsAndXML(t *testing.T) {
	var echo bytes.Buffer
	rep, err := read(strings.NewReader(goTestJSON), &echo)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(echo.String(), "a_test.go:9: got 1 <want> 2") || !strings.Contains(echo.String(), "b.go:3: undefined: x") {
		t.Errorf("echo lacks test output or plain build errors:\n%s", echo.String())
	}
	if got := [3]int{rep.count(statusAny), rep.count(statusFail), rep.count(statusSkip)}; got != [3]int{4, 2, 1} {
		t.Errorf("tests, failures, skipped = %v, want [4 2 1]", got)
	}

	var out bytes.Buffer
	if err := rep.writeXML(&out); err != nil {
		t.Fatal(err)
	}
	var doc xmlSuites
	if err := xml.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("output is not XML: %v\n%s", err, out.String())
	}
	if len(doc.Suites) != 2 || doc.Tests != 4 || doc.Failures != 2 || doc.Skipped != 1 {
		t.Fatalf("document = %+v, want 2 suites (p/c has no tests), 4 tests, 2 failures, 1 skipped", doc)
	}
	bad := doc.Suites[0].Cases[1]
	if bad.Name != "TestBad" || bad.Failure == nil || !strings.Contains(bad.Failure.Text, "got 1 <want> 2") {
		t.Errorf("TestBad case = %+v, want a failure with its output", bad)
	}
	build := doc.Suites[1].Cases[0]
	if build.Name != "package p/b" || build.Failure == nil || !strings.Contains(build.Failure.Text, "build failed") {
		t.Errorf("build failure case = %+v", build)
	}
}

func TestUnfinishedTestCountsAsFailed(t *testing.T) {
	rep, err := read(strings.NewReader(`{"Action":"run","Package":"p","Test":"TestHang"}`+"\n"), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.count(statusFail) != 1 {
		t.Errorf("a test without an outcome is not counted as failed")
	}
}
