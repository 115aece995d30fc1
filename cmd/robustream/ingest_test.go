package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/sources/ingest"
)

// TestIngestAPIWithCurl drives POST/DELETE /v1/documents of a running
// engine bound to loopback without an API token, with curl, and `robustream
// ingest`: no token or a wrong one is 401 even on loopback, a body over the
// limit 413, a bad record 400; JSON records and a multipart upload are 202
// with their ids and reach rs.documents; sending an unchanged folder again
// writes no new version, an edited record one; DELETE retires exactly the
// deleted document's questions.
func TestIngestAPIWithCurl(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an engine")
	}
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed")
	}
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	data := t.TempDir()
	startEngineProcess(t, addr, nil, "--data-dir", data, "--source", "none")
	token, err := ingestToken(data, false)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(data, ingestTokenFile)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("ingest token file: %v %v", info, err)
	}
	url := "http://" + addr + "/v1/documents"
	work := t.TempDir()
	curlDo := func(args ...string) (code, body string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, curl, append([]string{"-s", "-w", "\n%{http_code}"}, args...)...).Output()
		if err != nil {
			t.Fatalf("curl %v: %v", args, err)
		}
		s := strings.TrimRight(string(out), "\n")
		i := strings.LastIndex(s, "\n")
		return s[i+1:], s[:max(i, 0)]
	}
	auth := "Authorization: Bearer " + token
	jsonCT := "Content-Type: application/json"
	docs := `[{"id":"nw","title":"Northwind","text":"Northwind Bank appointed Maria Lopez as chief financial officer. Northwind Bank opened 12 new branches.","published_at":"2026-04-28"},` +
		`{"id":"gx","title":"Globex","text":"Globex Industries hired 450 engineers. Globex Industries is based in Springfield."}]`

	if code, _ := curlDo("-X", "POST", "-H", jsonCT, "-d", docs, url); code != "401" {
		t.Errorf("no token on loopback: %s, want 401", code)
	}
	if code, _ := curlDo("-X", "POST", "-H", "Authorization: Bearer wrong", "-H", jsonCT, "-d", docs, url); code != "401" {
		t.Errorf("wrong token: %s, want 401", code)
	}
	if code, _ := curlDo("-X", "DELETE", url+"/nw"); code != "401" {
		t.Errorf("DELETE without a token: %s, want 401", code)
	}
	big := filepath.Join(work, "big.json")
	if err := os.WriteFile(big, []byte(`[{"id":"x","text":"`+strings.Repeat("a", ingestMaxBody)+`"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _ := curlDo("-H", auth, "-H", jsonCT, "--data-binary", "@"+big, url); code != "413" {
		t.Errorf("body over the limit: %s, want 413", code)
	}
	if code, body := curlDo("-H", auth, "-H", jsonCT, "-d", `{"id":"x","text":"y","publish_date":"2026-01-01"}`, url); code != "400" || !strings.Contains(body, "publish_date") {
		t.Errorf("unknown field: %s %q, want 400 naming it", code, body)
	}
	code, body := curlDo("-H", auth, "-H", jsonCT, "-d", docs, url)
	if code != "202" || !strings.Contains(body, `"accepted":2`) || !strings.Contains(body, `"id":"gx"`) {
		t.Fatalf("two records: %s %s", code, body)
	}
	page := filepath.Join(work, "fjord.html")
	if err := os.WriteFile(page, []byte(`<html><head><title>Fjordline</title><meta name="date" content="2025-09-01"></head>`+
		`<body><p>Fjordline Logistics operates 40 trucks. Fjordline Logistics appointed Ingrid Solberg as chief executive.</p></body></html>`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, body := curlDo("-H", auth, "-F", "file=@"+page, url); code != "202" || !strings.Contains(body, `"id":"fjord.html"`) {
		t.Fatalf("multipart upload: %s %s", code, body)
	}
	corpus := filepath.Join(work, "corpus")
	for name, text := range map[string]string{
		"a.md":      "# Umbrella\n\nUmbrella Corp sold 12 ships. Umbrella Corp is based in Raccoon City.\n",
		"sub/b.txt": "Initech acquired Brightline Labs. Initech hired 30 engineers.\n",
	} {
		p := filepath.Join(corpus, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := robustream(t, "ingest", "--data-dir", data, corpus)
	if !strings.Contains(out, "sub/b.txt") || !strings.Contains(out, "accepted 2 document(s)") {
		t.Fatalf("robustream ingest DIR:\n%s", out)
	}
	q := func(query string) string {
		return strings.TrimSpace(robustream(t, "sql", "--data-dir", data, query))
	}
	// Wait for the pipeline: every document's questions (a deadline, not
	// a timed assertion).
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(3 * time.Minute); !ok(); time.Sleep(time.Second) {
			if time.Now().After(deadline) {
				t.Fatalf("still waiting for %s", what)
			}
		}
	}
	waitFor("5 documents with questions", func() bool {
		return q("SELECT uniqExact(doc_id) FROM robustream.questions") == "5"
	})
	if got := q("SELECT title, toDate(published_at) FROM robustream.documents WHERE title IN ('Northwind', 'Fjordline', 'Globex') ORDER BY title"); got !=
		"Fjordline\t2025-09-01\nGlobex\t1970-01-01\nNorthwind\t2026-04-28" {
		t.Errorf("titles and dates:\n%s", got)
	}
	// Unchanged again: no new version; one record edited: one.
	robustream(t, "ingest", "--data-dir", data, corpus)
	if code, _ := curlDo("-H", auth, "-H", jsonCT, "-d",
		`{"id":"nw","title":"Northwind","text":"Northwind Bank appointed Maria Lopez as chief financial officer. Northwind Bank opened 14 new branches.","published_at":"2026-05-28"}`, url); code != "202" {
		t.Fatalf("edit: %s", code)
	}
	waitFor("Northwind version 2", func() bool { return q("SELECT count() FROM robustream.documents WHERE version = 2") == "1" })
	if got := q("SELECT title FROM robustream.documents WHERE version > 1"); got != "Northwind" {
		t.Errorf("new versions after an unchanged folder and one edit: %q, want Northwind's only", got)
	}
	// DELETE retires exactly Globex's questions: the retirements it adds
	// are Globex's, all of them.
	gx := q("SELECT doc_id FROM robustream.documents WHERE title = 'Globex'")
	waitFor("Northwind's edit applied", func() bool {
		return q("SELECT count() FROM robustream.questions WHERE answer LIKE '%14%'") != "0"
	})
	retiredBefore := q("SELECT groupArray(question_id) FROM robustream.question_retirements")
	gxQuestions := q("SELECT count() FROM robustream.questions WHERE doc_id = '" + gx + "'")
	if code, body := curlDo("-X", "DELETE", "-H", auth, url+"/gx"); code != "202" || !strings.Contains(body, gx) {
		t.Fatalf("DELETE: %s %s", code, body)
	}
	waitFor("Globex's questions retired", func() bool {
		return q("SELECT count() FROM robustream.questions q WHERE doc_id = '"+gx+"' AND question_id NOT IN (SELECT question_id FROM robustream.question_retirements)") == "0"
	})
	added := q("SELECT groupArray(q.doc_id) FROM robustream.question_retirements r JOIN robustream.questions q USING question_id " +
		"WHERE NOT has(" + strings.ReplaceAll(retiredBefore, `"`, `'`) + ", r.question_id)")
	if want := "[" + strings.TrimSuffix(strings.Repeat("'"+gx+"',", atoiT(t, gxQuestions)), ",") + "]"; added != want {
		t.Errorf("the DELETE retired questions of %s, want Globex's %s questions (%s)", added, gxQuestions, gx)
	}
}

func atoiT(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

// TestIngestRefusesBadInput drives postDocuments in process (no engine):
// each kind of bad body gets a 4xx whose message says what is wrong, and
// nothing reaches the ingest source; a request whose client has gone away
// converts nothing and answers nothing.
func TestIngestRefusesBadInput(t *testing.T) {
	const token = "0123456789abcdef0123456789abcdef"
	log := slog.New(slog.DiscardHandler)
	s := &server{e: &engine{log: log}, auth: newAuthLimiter(100, log), ingest: &ingestAPI{src: ingest.New(), token: token}}
	post := func(ctx context.Context, ct string, body []byte) *httptest.ResponseRecorder {
		t.Helper()
		r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/v1/documents", bytes.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+token)
		r.Header.Set("Content-Type", ct)
		w := httptest.NewRecorder()
		s.postDocuments(w, r)
		return w
	}
	form := func(name string, data []byte) ([]byte, string) {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		fw, _ := mw.CreateFormFile("file", name)
		fw.Write(data)
		mw.Close()
		return b.Bytes(), mw.FormDataContentType()
	}
	ctx := context.Background()
	exe, exeCT := form("tool.exe", []byte("MZ\x90\x00"))
	bin, binCT := form("notes.txt", []byte("\x00\x01\x02 not text"))
	for _, c := range []struct {
		name, ct string
		body     []byte
		code     int
		says     []string
	}{
		{"empty body", "application/json", nil, 400, []string{"empty body"}},
		{"empty NDJSON", "application/x-ndjson", []byte("\n"), 400, []string{"no documents"}},
		{"invalid UTF-8", "application/json", []byte("{\"id\":\"a\",\"text\":\"caf\xe9\"}"), 400, []string{"not valid UTF-8"}},
		{"NUL escape", "application/json", []byte(`{"id":"a","text":"Acme\u0000opened"}`), 400, []string{"NUL byte"}},
		{"date 9999", "application/json", []byte(`{"id":"a","text":"Acme.","published_at":"9999-01-01"}`), 400, []string{"in the future"}},
		{"date 0001", "application/json", []byte(`{"id":"a","text":"Acme.","published_at":"0001-01-01"}`), 400, []string{"before 1900"}},
		{"unsupported file", exeCT, exe, 400, []string{"tool.exe", "Markdown", "plain text", "HTML", "PDF (.pdf)"}},
		{"binary file", binCT, bin, 400, []string{"notes.txt", "binary"}},
	} {
		w := post(ctx, c.ct, c.body)
		if w.Code != c.code {
			t.Errorf("%s: %d %q, want %d", c.name, w.Code, w.Body.String(), c.code)
			continue
		}
		for _, say := range c.says {
			if !strings.Contains(w.Body.String(), say) {
				t.Errorf("%s: %q does not say %q", c.name, w.Body.String(), say)
			}
		}
	}

	// The client is gone before the PDF is converted: nothing is
	// converted, submitted (that would answer 503) or refused (400).
	pdf, pdfCT := form("report.pdf", []byte("%PDF-1.4\n1 0 obj\n<< >>\nendobj\n"))
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if w := post(gone, pdfCT, pdf); w.Body.Len() != 0 {
		t.Errorf("client gone: answered %d %q", w.Code, w.Body.String())
	}
}
