package main

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type status int

const (
	statusAny status = iota
	statusPass
	statusFail
	statusSkip
)

type testCase struct {
	name    string
	status  status
	elapsed float64
	output  strings.Builder
}

type suite struct {
	name    string
	status  status
	elapsed float64
	output  strings.Builder // output outside any test, e.g. build errors
	cases   []*testCase
	byName  map[string]*testCase
}

// report is every package's results, in the order packages first appeared.
type report struct {
	suites []*suite
	byName map[string]*suite
}

// read parses go test -json output from r, copying each output line to
// echo. Lines that are not JSON (go 1.19 prints build errors as plain text)
// are echoed and otherwise ignored.
func read(r io.Reader, echo io.Writer) (*report, error) {
	rep := &report{byName: map[string]*suite{}}
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for scanner.Scan() {
		line := scanner.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(echo, "%s\n", line)
			continue
		}
		if e.Action == "output" {
			io.WriteString(echo, e.Output)
		}
		rep.apply(e)
	}
	return rep, scanner.Err()
}

func (rep *report) apply(e event) {
	s := rep.byName[e.Package]
	if s == nil {
		s = &suite{name: e.Package, byName: map[string]*testCase{}}
		rep.byName[e.Package] = s
		rep.suites = append(rep.suites, s)
	}
	if e.Test == "" {
		switch e.Action {
		case "output":
			s.output.WriteString(e.Output)
		case "pass", "fail", "skip":
			s.status, s.elapsed = statusOf(e.Action), e.Elapsed
		}
		return
	}
	c := s.byName[e.Test]
	if c == nil {
		c = &testCase{name: e.Test}
		s.byName[e.Test] = c
		s.cases = append(s.cases, c)
	}
	switch e.Action {
	case "output":
		c.output.WriteString(e.Output)
	case "pass", "fail", "skip":
		c.status, c.elapsed = statusOf(e.Action), e.Elapsed
	}
}

func statusOf(action string) status {
	switch action {
	case "pass":
		return statusPass
	case "skip":
		return statusSkip
	}
	return statusFail
}

// A failed package without a failed test (a build error, a panic outside
// tests, a timeout) becomes a failed test case named after the package, so
// the failure shows in CI. A test that never finished counts as failed.
func (s *suite) testCases() []*testCase {
	cases := s.cases
	failedTest := false
	for _, c := range cases {
		if c.status == statusAny {
			c.status = statusFail
		}
		failedTest = failedTest || c.status == statusFail
	}
	if s.status == statusFail && !failedTest {
		c := &testCase{name: "package " + s.name, status: statusFail, elapsed: s.elapsed}
		c.output.WriteString(s.output.String())
		cases = append(cases, c)
	}
	return cases
}

func (rep *report) count(want status) int {
	n := 0
	for _, s := range rep.suites {
		for _, c := range s.testCases() {
			if want == statusAny || c.status == want {
				n++
			}
		}
	}
	return n
}

type xmlMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

type xmlCase struct {
	ClassName string      `xml:"classname,attr"`
	Name      string      `xml:"name,attr"`
	Time      string      `xml:"time,attr"`
	Failure   *xmlMessage `xml:"failure,omitempty"`
	Skipped   *xmlMessage `xml:"skipped,omitempty"`
	SystemOut string      `xml:"system-out,omitempty"`
}

type xmlSuite struct {
	Name     string    `xml:"name,attr"`
	Tests    int       `xml:"tests,attr"`
	Failures int       `xml:"failures,attr"`
	Skipped  int       `xml:"skipped,attr"`
	Time     string    `xml:"time,attr"`
	Cases    []xmlCase `xml:"testcase"`
}

type xmlSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Skipped  int        `xml:"skipped,attr"`
	Suites   []xmlSuite `xml:"testsuite"`
}

// writeXML writes the report as JUnit XML. Packages without tests are left
// out.
func (rep *report) writeXML(w io.Writer) error {
	doc := xmlSuites{}
	for _, s := range rep.suites {
		cases := s.testCases()
		if len(cases) == 0 {
			continue
		}
		xs := xmlSuite{Name: s.name, Time: seconds(s.elapsed)}
		for _, c := range cases {
			xc := xmlCase{ClassName: s.name, Name: c.name, Time: seconds(c.elapsed), SystemOut: c.output.String()}
			switch c.status {
			case statusFail:
				xc.Failure = &xmlMessage{Message: "failed", Text: c.output.String()}
				xs.Failures++
			case statusSkip:
				xc.Skipped = &xmlMessage{Message: "skipped", Text: c.output.String()}
				xs.Skipped++
			}
			xs.Tests++
			xs.Cases = append(xs.Cases, xc)
		}
		doc.Tests += xs.Tests
		doc.Failures += xs.Failures
		doc.Skipped += xs.Skipped
		doc.Suites = append(doc.Suites, xs)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	encoder := xml.NewEncoder(w)
	encoder.Indent("", "  ")
	if err := encoder.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }
