package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime/multipart"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources/jsonl"
	"github.com/robustream/robustream/streams"
)

func TestDecode(t *testing.T) {
	ids := func(recs []*jsonl.Record) string {
		var out []string
		for _, r := range recs {
			out = append(out, r.ID)
		}
		return strings.Join(out, ",")
	}
	one := `{"id":"a","text":"Acme opened a plant."}`
	recs, err := Decode(context.Background(), "application/json", strings.NewReader(one))
	if err != nil || ids(recs) != "a" {
		t.Fatalf("one record: %v %v", ids(recs), err)
	}
	recs, err = Decode(context.Background(), "application/json; charset=utf-8", strings.NewReader(`[`+one+`,{"id":"b","text":"Globex."}]`))
	if err != nil || ids(recs) != "a,b" {
		t.Fatalf("array: %v %v", ids(recs), err)
	}
	recs, err = Decode(context.Background(), "application/x-ndjson", strings.NewReader(one+"\n\n"+`{"id":"b","deleted":true}`+"\n"))
	if err != nil || ids(recs) != "a,b" || !recs[1].Deleted {
		t.Fatalf("lines: %v %v", ids(recs), err)
	}

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("domain", "finance")
	w, _ := mw.CreateFormFile("file", "notes/q1.md")
	w.Write([]byte("---\ndate: 2026-04-28\n---\n# Q1\n\nAcme opened a plant.\n"))
	w, _ = mw.CreateFormFile("file", "page.html")
	w.Write([]byte("<html><body><nav>x</nav><p>Globex hired 450 engineers.</p></body></html>"))
	mw.Close()
	recs, err = Decode(context.Background(), mw.FormDataContentType(), &body)
	if err != nil || ids(recs) != "notes/q1.md,page.html" {
		t.Fatalf("multipart: %v %v", ids(recs), err)
	}
	if r := recs[0]; r.Title != "Q1" || r.Domain != "finance" || !strings.HasPrefix(r.PublishedAt, "2026-04-28") || strings.Contains(r.Text, "date:") {
		t.Errorf("uploaded Markdown became %+v", r)
	}
	if r := recs[1]; r.Title != "page" || !strings.Contains(r.Text, "Globex hired 450 engineers.") || r.PublishedAt != "" {
		t.Errorf("uploaded HTML became %+v", r)
	}

	for name, c := range map[string]struct{ ct, body string }{
		"unknown field":   {"application/json", `{"id":"a","text":"x","publish_date":"2026"}`},
		"no id":           {"application/json", `{"text":"x"}`},
		"bad line":        {"application/x-ndjson", one + "\n{"},
		"duplicate ids":   {"application/json", `[` + one + `,` + one + `]`},
		"empty array":     {"application/json", `[]`},
		"content type":    {"text/plain", "hello"},
		"no file":         {"multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"id\"\r\n\r\na\r\n--x--\r\n"},
		"unsupported":     {"multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.exe\"\r\n\r\nMZ\r\n--x--\r\n"},
		"binary upload":   {"multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\n\x00\x01\r\n--x--\r\n"},
		"truncated form":  {"multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nabc"},
		"empty body":      {"application/json", ""},
		"blank body":      {"application/json", " \n "},
		"empty lines":     {"application/x-ndjson", "\n\n"},
		"empty form":      {"multipart/form-data; boundary=x", ""},
		"latin1 record":   {"application/json", "{\"id\":\"a\",\"text\":\"caf\xe9\"}"},
		"latin1 in array": {"application/json", "[" + one + ",{\"id\":\"b\",\"text\":\"caf\xe9\"}]"},
		"latin1 line":     {"application/x-ndjson", one + "\n{\"id\":\"b\",\"text\":\"caf\xe9\"}"},
		"NUL escape":      {"application/json", `{"id":"a","text":"Acme\u0000"}`},
		"control noise":   {"application/json", `{"id":"a","text":"\u0001\u0002\u0003 ab"}`},
		"date 9999":       {"application/json", `{"id":"a","text":"Acme.","published_at":"9999-01-01"}`},
		"date 0001":       {"application/json", `{"id":"a","text":"Acme.","published_at":"0001-01-01"}`},
		"form date 9999": {"multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"published_at\"\r\n\r\n9999-01-01\r\n" +
			"--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nAcme.\r\n--x--\r\n"},
	} {
		if _, err := Decode(context.Background(), c.ct, strings.NewReader(c.body)); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%s: %v, want a bad request", name, err)
		}
	}
}

func doc(t *testing.T, id, text string) *schemas.DocumentVersion {
	t.Helper()
	d, err := (&jsonl.Record{ID: id, Text: text}).Document(SourceName, "ingest:"+id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestSubmitWaitsForTheWrite: Submit returns the emit's outcome; a record
// too large fails its own submission only, any other emit error also
// ends Run; Close ends Run and later Submits fail.
func TestSubmitWaitsForTheWrite(t *testing.T) {
	s := New()
	var fail error
	var got []string
	done := make(chan error, 1)
	go func() {
		done <- s.Run(context.Background(), func(_ context.Context, recs ...streams.Record) error {
			if fail != nil {
				return fail
			}
			for _, r := range recs {
				got = append(got, string(r.Key))
			}
			return nil
		})
	}()
	ctx := context.Background()
	a, b := doc(t, "a", "Acme."), doc(t, "b", "Globex.")
	if err := s.Submit(ctx, a, b); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != a.DocID+","+b.DocID {
		t.Fatalf("written %v", got)
	}
	fail = streams.ErrTooLarge
	if err := s.Submit(ctx, a); !errors.Is(err, streams.ErrTooLarge) {
		t.Fatalf("too large: %v", err)
	}
	boom := errors.New("broker down")
	fail = boom
	if err := s.Submit(ctx, a); !errors.Is(err, boom) {
		t.Fatalf("emit error: %v", err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, boom) {
			t.Fatalf("Run returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run went on after a broker error")
	}
	if err := s.Submit(ctx, a); !errors.Is(err, ErrClosed) {
		t.Fatalf("Submit after Run ended: %v", err)
	}
	s2 := New()
	s2.Close()
	if err := s2.Run(ctx, func(context.Context, ...streams.Record) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s2.Submit(ctx, a); !errors.Is(err, ErrClosed) {
		t.Fatalf("Submit after Close: %v", err)
	}
}

// TestDecodePDFUpload: an uploaded PDF is read as the dir: source reads
// one (pdftotext), its running footer dropped.
func TestDecodePDFUpload(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext is not installed (Debian package poppler-utils)")
	}
	var pdf bytes.Buffer
	var offs []int
	obj := func(s string) {
		offs = append(offs, pdf.Len())
		fmt.Fprintf(&pdf, "%d 0 obj\n%s\nendobj\n", len(offs), s)
	}
	pdf.WriteString("%PDF-1.4\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj("<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 2 >>")
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i, body := range []string{"Acme opened a plant in Oslo.", "Acme hired 40 engineers."} {
		c := fmt.Sprintf("BT /F1 11 Tf 72 700 Td (%s) Tj ET\nBT /F1 8 Tf 72 40 Td (Acme internal) Tj ET\n", body)
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", len(c), c))
	}
	xref := pdf.Len()
	fmt.Fprintf(&pdf, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
	for _, o := range offs {
		fmt.Fprintf(&pdf, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&pdf, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offs)+1, xref)

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("file", "acme.pdf")
	w.Write(pdf.Bytes())
	mw.Close()
	recs, err := Decode(context.Background(), mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].ID != "acme.pdf" || recs[0].Text != "Acme opened a plant in Oslo.\n\nAcme hired 40 engineers.\n" {
		t.Fatalf("uploaded PDF: %+v", recs)
	}
}

// TestDecodeSaysWhy: a refused body's error names what is wrong, so that
// the client can fix it.
func TestDecodeSaysWhy(t *testing.T) {
	f := func(ct, body string, says ...string) {
		t.Helper()
		_, err := Decode(context.Background(), ct, strings.NewReader(body))
		if !errors.Is(err, ErrBadRequest) {
			t.Errorf("%q: %v, want a bad request", body, err)
			return
		}
		for _, s := range says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%q: %q does not say %q", body, err, s)
			}
		}
	}
	f("application/json", "", "empty body")
	f("multipart/form-data; boundary=x", "", "empty multipart body")
	f("application/json", "{\"id\":\"a\",\"text\":\"caf\xe9\"}", "not valid UTF-8", "0xe9 at byte 21")
	f("application/json", `[{"id":"a","text":"x"},{"id":"b","text":"Acme\u0000"}]`, "document 1", "NUL byte")
	f("application/json", `{"id":"a","text":"Acme.","published_at":"9999-01-01"}`, "no publication date", "in the future")
	form := "--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.exe\"\r\n\r\nMZ\r\n--x--\r\n"
	f("multipart/form-data; boundary=x", form, "a.exe", "Markdown (.md, .markdown)", "plain text (.txt", "README", "HTML (.html, .htm)", "PDF (.pdf)")
}

// TestUploadTextLimit: the text converted from all the files of one upload
// is bounded (MaxUploadText), whatever the body's own limit: over it, the
// request fails with ErrTooMuchText, naming the limit, before any more
// files are converted.
func TestUploadTextLimit(t *testing.T) {
	upload := func(files, size int) (*bytes.Buffer, string) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		line := strings.Repeat("Acme opened a plant in Oslo. ", 35) + "\n" // 1 KiB
		text := strings.Repeat(line, size/len(line))
		for i := range files {
			w, _ := mw.CreateFormFile("file", fmt.Sprintf("part%d.txt", i))
			w.Write([]byte(text))
		}
		mw.Close()
		return &body, mw.FormDataContentType()
	}
	body, ct := upload(8, 4<<20-1<<10) // just under the limit, in all
	if recs, err := Decode(context.Background(), ct, body); err != nil || len(recs) != 8 {
		t.Fatalf("8 files of just under 4 MiB: %d records, %v", len(recs), err)
	}
	body, ct = upload(9, 4<<20)
	_, err := Decode(context.Background(), ct, body)
	if !errors.Is(err, ErrTooMuchText) || errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), fmt.Sprint(MaxUploadText)) ||
		!strings.Contains(err.Error(), "part8.txt") {
		t.Errorf("9 files of 4 MiB: %v, want ErrTooMuchText naming the limit and the file that crossed it", err)
	}
}

// TestDecodeStopsWithTheRequest: once the request's context ends (the
// client went away), a PDF is not converted and Decode returns the
// context's error, not a bad request about the file.
func TestDecodeStopsWithTheRequest(t *testing.T) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("file", "a.pdf")
	w.Write([]byte("%PDF-1.4\n1 0 obj\n<< >>\nendobj\n"))
	mw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Decode(ctx, mw.FormDataContentType(), &body)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrBadRequest) {
		t.Errorf("cancelled request: %v, want context.Canceled", err)
	}
}

// TestDecodeConversionBudget: an upload whose files take longer than
// MaxConvertTime to convert is refused as too much (413), not converted on
// while the client waits.
func TestDecodeConversionBudget(t *testing.T) {
	defer func(d time.Duration) { MaxConvertTime = d }(MaxConvertTime)
	MaxConvertTime = time.Nanosecond
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("file", "a.pdf")
	w.Write([]byte("%PDF-1.4\n1 0 obj\n<< >>\nendobj\n"))
	mw.Close()
	_, err := Decode(context.Background(), mw.FormDataContentType(), &body)
	if !errors.Is(err, ErrTooMuchText) || !strings.Contains(err.Error(), "took over") {
		t.Errorf("conversion over budget: %v, want ErrTooMuchText naming the time", err)
	}
}
