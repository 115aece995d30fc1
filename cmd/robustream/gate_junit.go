package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// The JUnit XML schema CI systems read (Jenkins, GitLab, GitHub test
// reporters): testsuites › testsuite › testcase, a failure or skipped
// element in a case that did not pass.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name      string      `xml:"name,attr"`
		Tests     int         `xml:"tests,attr"`
		Failures  int         `xml:"failures,attr"`
		Errors    int         `xml:"errors,attr"`
		Skipped   int         `xml:"skipped,attr"`
		Time      string      `xml:"time,attr"`
		Timestamp string      `xml:"timestamp,attr"`
		Cases     []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitFailure `xml:"failure,omitempty"`
		Skipped   *junitSkipped `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr"`
	}
)

// writeJUnit writes checks as one JUnit test suite, a test case per
// check (classname robustream.<class>), a failure carrying the figures;
// took is the run's duration, started its start.
func writeJUnit(w io.Writer, checks []gateCheck, started time.Time, took time.Duration) error {
	secs := fmt.Sprintf("%.3f", took.Seconds())
	s := junitSuite{Name: "robustream eval", Time: secs, Timestamp: started.UTC().Format("2006-01-02T15:04:05")}
	for _, c := range checks {
		jc := junitCase{Name: c.Name, Classname: "robustream." + c.Class, Time: "0"}
		switch {
		case c.Failed:
			jc.Failure = &junitFailure{Message: c.Message, Type: c.Class, Text: c.Figures}
			s.Failures++
		case c.Skipped:
			jc.Skipped = &junitSkipped{Message: c.Figures}
			s.Skipped++
		default:
			jc.SystemOut = c.Figures
		}
		s.Cases = append(s.Cases, jc)
	}
	s.Tests = len(s.Cases)
	all := junitSuites{Name: "robustream", Tests: s.Tests, Failures: s.Failures, Skipped: s.Skipped, Time: secs, Suites: []junitSuite{s}}
	var b strings.Builder
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
