package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/robustream/robustream/sources/dir"
)

var ingestKeys = []string{"data_dir", "http_token_env"}

// ingestBatchBytes is how much file content one request of `ingest DIR`
// carries, well under the server's body limit.
const ingestBatchBytes = 8 << 20

// ingestBatchPDFs is how many PDF files one request of `ingest DIR` carries
// at most: the engine converts them within ingest.MaxConvertTime per
// request, and a long PDF can take seconds.
const ingestBatchPDFs = 8

// cmdIngest sends documents to a running engine's POST /v1/documents.
func cmdIngest(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	base := fs.String("url", "", "the engine's HTTP address (default: the engine running on --data-dir)")
	id := fs.String("id", "", "the document id of a single file or of plain text on stdin (default: the file name)")
	domain := fs.String("domain", "", "the domain of uploaded files")
	cfg, err := parseConfig(fs, args, stdout, ingestKeys...)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: robustream ingest [--data-dir D | --url http://HOST:PORT] [--id ID] FILE|DIR|-")
	}
	if *base == "" {
		info, ok := runningEngine(cfg.DataDir)
		if !ok {
			return fmt.Errorf("no engine with an HTTP server is running on data dir %s (start `robustream run`, or pass --url)", cfg.DataDir)
		}
		*base = "http://" + info.HTTP
	}
	var token string
	if cfg.HTTPToken != "" {
		if token = os.Getenv(cfg.HTTPToken); token == "" {
			return fmt.Errorf("http_token_env names %s, which is empty or unset", cfg.HTTPToken)
		}
	} else if token, err = ingestToken(cfg.DataDir, false); err != nil {
		return fmt.Errorf("%w (set http_token_env to the variable holding the engine's API token)", err)
	}
	c := &ingestClient{url: strings.TrimSuffix(*base, "/") + "/v1/documents", token: token, out: stdout}
	arg := fs.Arg(0)
	if arg == "-" {
		raw, err := io.ReadAll(io.LimitReader(os.Stdin, ingestMaxBody+1))
		if err != nil {
			return err
		}
		if len(raw) > ingestMaxBody {
			return fmt.Errorf("stdin is over the %d-byte limit of one request", ingestMaxBody)
		}
		ct, body := stdinBody(raw, *id)
		if ct == "application/json" && !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) && *id == "" {
			return errors.New("plain text on stdin needs --id ID (or send JSON records)")
		}
		return c.sendBody(ctx, ct, body)
	}
	info, err := os.Stat(arg)
	if err != nil {
		return err
	}
	if info.IsDir() {
		return c.sendDir(ctx, arg, *domain)
	}
	switch strings.ToLower(filepath.Ext(arg)) {
	case ".jsonl", ".ndjson":
		raw, err := os.ReadFile(arg)
		if err != nil {
			return err
		}
		return c.sendBody(ctx, "application/x-ndjson", raw)
	case ".json":
		raw, err := os.ReadFile(arg)
		if err != nil {
			return err
		}
		return c.sendBody(ctx, "application/json", raw)
	}
	name := filepath.Base(arg)
	raw, err := os.ReadFile(arg)
	if err != nil {
		return err
	}
	return c.sendFiles(ctx, []upload{{name: name, raw: raw}}, *id, *domain)
}

// stdinBody is what `ingest -` sends: JSON as it is (an array, or one
// record per line), anything else as one plain-text document named id.
func stdinBody(raw []byte, id string) (string, []byte) {
	t := bytes.TrimSpace(raw)
	switch {
	case len(t) > 0 && t[0] == '[':
		return "application/json", raw
	case len(t) > 0 && t[0] == '{':
		return "application/x-ndjson", raw
	}
	b, _ := json.Marshal(map[string]string{"id": id, "text": string(raw)})
	return "application/json", b
}

type upload struct {
	name string
	raw  []byte
}

type ingestClient struct {
	url, token string
	out        io.Writer
	accepted   int
}

// sendDir uploads the folder's Markdown, text, HTML and PDF files, named by
// their path relative to it (as dir: names its documents), in batches. It
// follows no symbolic link.
func (c *ingestClient) sendDir(ctx context.Context, root, domain string) error {
	var batch []upload
	size, pdfs := 0, 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := c.sendFiles(ctx, batch, "", domain)
		batch, size, pdfs = nil, 0, 0
		return err
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			fmt.Fprintf(c.out, "skipped %s: not a regular file\n", p)
			return nil
		}
		if !dir.Supported(d.Name()) {
			return nil
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		batch = append(batch, upload{name: filepath.ToSlash(rel), raw: raw})
		if strings.EqualFold(filepath.Ext(p), ".pdf") {
			pdfs++
		}
		if size += len(raw); size >= ingestBatchBytes || pdfs >= ingestBatchPDFs {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	if c.accepted == 0 {
		return fmt.Errorf("no Markdown, text, HTML or PDF file under %s", root)
	}
	return nil
}

func (c *ingestClient) sendFiles(ctx context.Context, files []upload, id, domain string) error {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if id != "" {
		mw.WriteField("id", id)
	}
	if domain != "" {
		mw.WriteField("domain", domain)
	}
	for _, f := range files {
		w, err := mw.CreateFormFile("file", f.name)
		if err != nil {
			return err
		}
		w.Write(f.raw)
	}
	if err := mw.Close(); err != nil {
		return err
	}
	return c.sendBody(ctx, mw.FormDataContentType(), body.Bytes())
}

func (c *ingestClient) sendBody(ctx context.Context, contentType string, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, 2*ingestWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := (&http.Client{Timeout: 2*ingestWait + 5*time.Second}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(raw)))
	}
	var ans struct {
		Accepted  int           `json:"accepted"`
		Documents []ingestedDoc `json:"documents"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		return fmt.Errorf("unreadable answer: %w", err)
	}
	for _, d := range ans.Documents {
		fmt.Fprintf(c.out, "%s\t%s\n", d.DocID, d.ID)
	}
	c.accepted += ans.Accepted
	fmt.Fprintf(c.out, "accepted %d document(s)\n", ans.Accepted)
	return nil
}
