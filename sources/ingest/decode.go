package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"path"
	"strings"
	"time"

	"github.com/robustream/robustream/sources/dir"
	"github.com/robustream/robustream/sources/jsonl"
)

// MaxDocuments bounds the documents of one request.
const MaxDocuments = 10000

// MaxUploadText bounds the text converted from all the files of one
// multipart upload. The body's own limit does not bound it: a PDF's text
// is compressed in the file, so a few MiB of PDFs can become hundreds of
// MiB of text (each is cut at pdf.MaxTextBytes, but a request may carry
// many).
const MaxUploadText = 32 << 20

// MaxConvertTime bounds the time one multipart upload may spend turning
// its files into text. A PDF can take pdftotext half a minute (its own
// limit), and a request may carry many: without a bound, one request could
// hold a CPU for hours while its client waits. It is under the HTTP
// server's default write timeout, so the client hears why.
var MaxConvertTime = 40 * time.Second

// ErrBadRequest wraps every error of a body that is not a valid request.
var ErrBadRequest = errors.New("bad request")

// ErrTooMuchText is an upload whose files' text, once converted, is over
// MaxUploadText, or whose conversion took over MaxConvertTime (HTTP 413:
// send fewer files per request).
var ErrTooMuchText = errors.New("uploaded files hold too much text")

func bad(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadRequest, fmt.Sprintf(format, args...))
}

// Decode reads a request body of contentType into records:
//   - application/json: one record, or an array of records;
//   - application/x-ndjson or application/jsonl: one record per line;
//   - multipart/form-data: every file part is one document, read by its
//     file name's extension as the dir: source reads files (Markdown,
//     text, HTML, PDF); its id is the form field "id" when there is one file,
//     else the file name; "domain" and "published_at" fields apply to all.
//
// Errors wrap ErrBadRequest and name the item, or are (or wrap) the body
// reader's own error, such as http.MaxBytesError, or wrap ErrTooMuchText.
// Nothing is returned unless every item is valid: a request is accepted
// whole or not at all. PDF conversion stops when ctx ends (the client went
// away), and Decode returns ctx's error.
func Decode(ctx context.Context, contentType string, body io.Reader) ([]*jsonl.Record, error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return nil, bad("Content-Type %q: want application/json, application/x-ndjson or multipart/form-data", contentType)
	}
	var recs []*jsonl.Record
	switch mt {
	case "application/json":
		recs, err = decodeJSON(body)
	case "application/x-ndjson", "application/jsonl", "application/jsonlines":
		recs, err = decodeLines(body)
	case "multipart/form-data":
		recs, err = decodeMultipart(ctx, multipart.NewReader(body, params["boundary"]))
	default:
		return nil, bad("Content-Type %q: want application/json, application/x-ndjson or multipart/form-data", mt)
	}
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, bad("no documents")
	}
	seen := map[string]int{}
	for i, r := range recs {
		if j, dup := seen[r.ID]; dup {
			return nil, bad("documents %d and %d have the same id %q", j, i, r.ID)
		}
		seen[r.ID] = i
	}
	return recs, nil
}

func decodeJSON(body io.Reader) ([]*jsonl.Record, error) {
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, readError(err)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, bad("empty body: want a document record or a JSON array of them")
	}
	if raw[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, bad("not a JSON array of documents: %v", err)
		}
		if len(items) > MaxDocuments {
			return nil, bad("%d documents, over %d per request", len(items), MaxDocuments)
		}
		recs := make([]*jsonl.Record, 0, len(items))
		for i, it := range items {
			r, err := jsonl.Parse(it)
			if err != nil {
				return nil, bad("document %d: %v", i, err)
			}
			recs = append(recs, r)
		}
		return recs, nil
	}
	r, err := jsonl.Parse(raw)
	if err != nil {
		return nil, bad("%v", err)
	}
	return []*jsonl.Record{r}, nil
}

func decodeLines(body io.Reader) ([]*jsonl.Record, error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), jsonl.DefaultMaxLineBytes)
	var recs []*jsonl.Record
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if len(recs) == MaxDocuments {
			return nil, bad("over %d documents per request", MaxDocuments)
		}
		r, err := jsonl.Parse(line)
		if err != nil {
			return nil, bad("line %d: %v", n, err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, bad("a line is over %d bytes", jsonl.DefaultMaxLineBytes)
		}
		return nil, readError(err)
	}
	return recs, nil
}

// decodeMultipart reads the form's fields and files in order. Each file is
// converted as it arrives, so the request holds its text, at most
// MaxUploadText, and not every file's raw bytes besides.
func decodeMultipart(ctx context.Context, mr *multipart.Reader) ([]*jsonl.Record, error) {
	fields := map[string]string{}
	type file struct {
		name string
		c    dir.Converted
	}
	var files []file
	var text, parts int
	cctx, cancel := context.WithTimeout(ctx, MaxConvertTime)
	defer cancel()
	for ; ; parts++ {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if parts == 0 && errors.Is(err, io.EOF) {
			return nil, bad("empty multipart body: want one file part per document")
		}
		if err != nil {
			// Wrapped, not flattened: the caller tells a body over its
			// limit (the reader's error) from a malformed one.
			return nil, fmt.Errorf("%w: multipart body: %w", ErrBadRequest, err)
		}
		raw, err := io.ReadAll(p)
		if err != nil {
			return nil, readError(err)
		}
		// Part.FileName keeps only the last element; the id of a file of
		// `robustream ingest DIR` is its relative path, so read it whole.
		_, disp, _ := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
		fileName := disp["filename"]
		if fileName == "" {
			fields[p.FormName()] = string(raw)
			continue
		}
		if len(files) == MaxDocuments {
			return nil, bad("over %d files per request", MaxDocuments)
		}
		name := uploadName(fileName)
		if name == "" {
			return nil, bad("file name %q names no file", fileName)
		}
		c, err := dir.Convert(cctx, name, raw)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if cctx.Err() != nil {
				return nil, fmt.Errorf("%w: converting the %d files up to %s took over %v; send them in several requests",
					ErrTooMuchText, len(files)+1, name, MaxConvertTime)
			}
			return nil, bad("file %v", err)
		}
		if text += len(c.Text); text > MaxUploadText {
			return nil, fmt.Errorf("%w: the %d files up to %s hold over %d bytes of text; send them in several requests",
				ErrTooMuchText, len(files)+1, name, MaxUploadText)
		}
		files = append(files, file{name: name, c: c})
	}
	if len(files) == 0 {
		return nil, bad("multipart body has no file part")
	}
	if fields["id"] != "" && len(files) > 1 {
		return nil, bad("the id field names one document, but %d files were sent", len(files))
	}
	recs := make([]*jsonl.Record, 0, len(files))
	for _, f := range files {
		c := f.c
		if c.Title == "" {
			c.Title = strings.TrimSuffix(path.Base(f.name), path.Ext(f.name))
		}
		r := &jsonl.Record{ID: f.name, Title: c.Title, Text: c.Text, Domain: fields["domain"], PublishedAt: fields["published_at"],
			Metadata: map[string]any{"file_name": f.name, "mime": c.MIME}}
		if id := fields["id"]; id != "" {
			r.ID = id
		}
		if r.PublishedAt == "" && !c.PublishedAt.IsZero() {
			r.PublishedAt = c.PublishedAt.Format(time.RFC3339)
		}
		if err := r.Check(); err != nil {
			return nil, bad("file %s: %v", f.name, err)
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// uploadName is an uploaded file's name as its document id: a relative
// path with forward slashes ("notes/q1.md", as `robustream ingest DIR`
// sends them; "../" cannot climb above the top), "" when empty.
func uploadName(name string) string {
	name = path.Clean("/" + strings.ReplaceAll(name, "\\", "/"))[1:]
	if name == "" || name == "." {
		return ""
	}
	return name
}

// readError is a body that could not be read (cut short, or over the
// limit): a bad request that still wraps the reader's own error, so that
// the caller can answer 413 for http.MaxBytesError.
func readError(err error) error {
	return fmt.Errorf("%w: reading the body: %w", ErrBadRequest, err)
}
