package main

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"
)

func TestGateParseThreshold(t *testing.T) {
	for spec, want := range map[string]threshold{
		"rare.overall=0.7":                  {Min: 0.7},
		"lexical:rare.query=0.5":            {Model: "lexical", Min: 0.5},
		"builtin:lexical:prgb.score=0.25":   {Model: "builtin:lexical", Min: 0.25},
		"gpu-a:sure.rr=1":                   {Model: "gpu-a", Min: 1},
		"support-bot:rare.retrieval=0.0001": {Model: "support-bot", Min: 0.0001},
	} {
		got, err := parseThreshold(spec)
		if err != nil || got.Model != want.Model || got.Min != want.Min {
			t.Errorf("%s: %+v, %v", spec, got, err)
		}
	}
	if got, _ := parseThreshold("lexical:rare.query=0.5"); got.gateMetric.FullName() != "rare.query" || got.String() != "lexical:rare.query>=0.5" {
		t.Errorf("metric %s, %s", got.gateMetric.FullName(), got)
	}
	for spec, want := range map[string]string{
		"rare.overal=0.7":  "unknown metric \"rare.overal\"; valid: rare.overall, rare.query, rare.document, rare.retrieval, sure.rr, prgb.score, prgb.all_correct",
		"grade.error=0.1":  "unknown metric",
		"rare.overall":     "want [MODEL:]FAMILY.METRIC=VALUE",
		"rare.overall=1.5": "not a score between 0 and 1",
		"rare.overall=x":   "not a score",
		":rare.overall=.5": "empty model",
	} {
		if _, err := parseThreshold(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}

func TestGateRequests(t *testing.T) {
	checks := checkRequests([]modelRequests{
		{Model: "ok", Total: 100, Failed: 10},
		{Model: "over", Total: 100, Failed: 11, LastError: "HTTP 500"},
		{Model: "dead", Total: 91, Failed: 91, LastError: "model down since …: connection refused"},
		{Model: "silent"},
	}, 0.10)
	got := map[string]gateCheck{}
	for _, c := range checks {
		got[c.Name] = c
	}
	if got["ok"].Failed || !strings.Contains(got["ok"].Figures, "10 of 100 request(s) failed (10.0%") {
		t.Errorf("10%% failed at --max-failed 10%%: %+v", got["ok"])
	}
	if !got["over"].Failed || !strings.Contains(got["over"].Message, "11 of 100") || !strings.Contains(got["over"].Message, "HTTP 500") {
		t.Errorf("11%%: %+v", got["over"])
	}
	if !got["dead"].Failed || !strings.Contains(got["dead"].Message, "every request failed (91 of 91)") || !strings.Contains(got["dead"].Message, "connection refused") {
		t.Errorf("all failed: %+v", got["dead"])
	}
	if !got["silent"].Failed || !strings.Contains(got["silent"].Message, "no results") {
		t.Errorf("no results: %+v", got["silent"])
	}
	// Every request failed fails the run whatever --max-failed says.
	if c := checkRequests([]modelRequests{{Model: "dead", Total: 3, Failed: 3}}, 1); !c[0].Failed {
		t.Errorf("all failed at --max-failed 1: %+v", c[0])
	}
}

const reportJSON = `{
 "rare": [
  {"model": "builtin:lexical", "baseline": true, "outcomes": 400, "questions": 40, "overall": 0.41, "overall_ci": [0.35, 0.47],
   "query": 0.5, "document": 0.3, "retrieval": null, "pooled": {"overall": 0.4}},
  {"model": "gpu", "outcomes": 500, "questions": 50, "overall": 0.62, "query": 0.7, "document": 0.55, "retrieval": null, "pooled": {"overall": 0.6}},
  {"model": "rag", "outcomes": 100, "questions": 50, "overall": 0.8, "query": 0.8, "document": null, "retrieval": null, "pooled": {"overall": 0.8}}
 ],
 "sure": [{"model": "gpu", "split": "all", "n": 200, "rr": 0.9}, {"model": "gpu", "split": "known_golden", "n": 50, "rr": 0.2}],
 "prgb": [{"model": "gpu", "points": 40, "score": 0.5, "all_correct_share": 0.3}]
}`

func TestGateThresholds(t *testing.T) {
	rep, err := parseGateReport([]byte(reportJSON))
	if err != nil {
		t.Fatal(err)
	}
	th := func(s string) threshold {
		x, err := parseThreshold(s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	checks := checkThresholds(rep, []threshold{th("rare.overall=0.7"), th("rare.document=0.5"), th("builtin:lexical:rare.overall=0.4"),
		th("rag:rare.document=0.5"), th("gpu:sure.rr=0.95")}, []string{"gpu", "rag"})
	want := map[string]string{ // name → "" pass, "skip", or a part of the failure
		"gpu rare.overall>=0.7":             "model gpu: rare.overall = 0.620 is below 0.7",
		"rag rare.overall>=0.7":             "",
		"gpu rare.document>=0.5":            "",
		"rag rare.document>=0.5":            "skip", // no document axis, unprefixed
		"builtin:lexical rare.overall>=0.4": "",
		"gpu sure.rr>=0.95":                 "sure.rr = 0.900 is below 0.95",
	}
	failedMissing := false
	for _, c := range checks {
		if c.Name == "rag rare.document>=0.5" && c.Failed {
			// The explicit rag:rare.document: a named model must have it.
			failedMissing = strings.Contains(c.Message, "no rare.document score")
			continue
		}
		w, ok := want[c.Name]
		if !ok {
			t.Errorf("unexpected check %+v", c)
			continue
		}
		switch {
		case w == "" && (c.Failed || c.Skipped):
			t.Errorf("%s should pass: %+v", c.Name, c)
		case w == "skip" && !c.Skipped:
			t.Errorf("%s should be skipped: %+v", c.Name, c)
		case w != "" && w != "skip" && (!c.Failed || !strings.Contains(c.Message, w)):
			t.Errorf("%s: %+v, want a failure with %q", c.Name, c, w)
		}
	}
	if !failedMissing {
		t.Error("rag:rare.document=0.5 did not fail on the missing score")
	}
	for _, c := range checks {
		if c.Name == "builtin:lexical rare.overall>=0.4" && !strings.Contains(c.Figures, "0.410 (95% CI 0.350–0.470) over 40 questions") {
			t.Errorf("figures %q lack the interval", c.Figures)
		}
	}
}

func TestGateBaselineCompare(t *testing.T) {
	base, _ := parseGateReport([]byte(reportJSON))
	// gpu's pooled RARE rate falls from 0.6 to 0.4 over 500 outcomes each:
	// z = 0.2 / sqrt(0.5·0.5·2/500) = 6.32, p ≈ 2.6e-10: a significant drop.
	// Its PRGB rate falls as much over 40 points, below min_samples 50.
	cur, _ := parseGateReport([]byte(strings.NewReplacer(`"pooled": {"overall": 0.6}`, `"pooled": {"overall": 0.4}`,
		`"all_correct_share": 0.3`, `"all_correct_share": 0.1`, `"rr": 0.9`, `"rr": 0.88`).Replace(reportJSON)))
	checks := compareBaseline(cur, base, []string{"gpu", "rag"}, 0.01, 0.1, 50)
	byName := map[string]gateCheck{}
	for _, c := range checks {
		byName[c.Name] = c
	}
	if c := byName["gpu rare.overall"]; !c.Failed || !strings.Contains(c.Message, "fell from 0.600 to 0.400") || !strings.Contains(c.Figures, "z test p = 2.") {
		t.Errorf("significant drop: %+v", c)
	}
	if c := byName["gpu sure.rr"]; c.Failed || c.Skipped {
		t.Errorf("a drop of 0.02 (below max_drop): %+v", c)
	}
	if c := byName["gpu prgb.all_correct"]; !c.Skipped || !strings.Contains(c.Figures, "fewer than 50") {
		t.Errorf("40 points: %+v", c)
	}
	if c := byName["rag rare.overall"]; c.Failed || c.Skipped {
		t.Errorf("unchanged: %+v", c)
	}
	if c := byName["rag sure.rr"]; !c.Skipped {
		t.Errorf("no SURE for rag: %+v", c)
	}
	if len(gateFailures(checks)) != 1 {
		t.Errorf("failures %q", gateFailures(checks))
	}
}

func TestGateReportRejectsOtherJSON(t *testing.T) {
	for _, s := range []string{`{"a": 1}`, `[1]`, `not json`} {
		if _, err := parseGateReport([]byte(s)); err == nil || !strings.Contains(err.Error(), "not a robustream report") {
			t.Errorf("%s: %v", s, err)
		}
	}
}

// TestGateJUnit: the XML parses with encoding/xml into the schema's shape,
// with a failure carrying the message and the figures, a skipped case and
// the counts.
func TestGateJUnit(t *testing.T) {
	checks := []gateCheck{
		{Class: "requests", Name: "gpu", Figures: "0 of 10 request(s) failed"},
		{Class: "requests", Name: "dead", Failed: true, Message: "model dead: every request failed (10 of 10): refused <&>", Figures: "10 of 10 request(s) failed"},
		{Class: "fail-under", Name: "rag rare.document>=0.5", Skipped: true, Figures: "model rag has no rare.document score"},
	}
	var b bytes.Buffer
	if err := writeJUnit(&b, checks, time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC), 61500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Suites   []struct {
			Name      string `xml:"name,attr"`
			Tests     int    `xml:"tests,attr"`
			Failures  int    `xml:"failures,attr"`
			Skipped   int    `xml:"skipped,attr"`
			Time      string `xml:"time,attr"`
			Timestamp string `xml:"timestamp,attr"`
			Cases     []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	if doc.Tests != 3 || doc.Failures != 1 || len(doc.Suites) != 1 {
		t.Fatalf("counts %+v\n%s", doc, b.String())
	}
	s := doc.Suites[0]
	if s.Tests != 3 || s.Failures != 1 || s.Skipped != 1 || s.Time != "61.500" || s.Timestamp != "2026-11-24T18:00:00" || len(s.Cases) != 3 {
		t.Fatalf("suite %+v", s)
	}
	if c := s.Cases[1]; c.Classname != "robustream.requests" || c.Name != "dead" || c.Failure == nil ||
		c.Failure.Message != "model dead: every request failed (10 of 10): refused <&>" || c.Failure.Text != "10 of 10 request(s) failed" {
		t.Errorf("failed case %+v", c)
	}
	if c := s.Cases[2]; c.Skipped == nil || c.Failure != nil || c.Skipped.Message != "model rag has no rare.document score" {
		t.Errorf("skipped case %+v", c)
	}
	if c := s.Cases[0]; c.Failure != nil || c.Skipped != nil {
		t.Errorf("passed case %+v", c)
	}
}
