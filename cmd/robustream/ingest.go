package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources"
	"github.com/robustream/robustream/sources/ingest"
	"github.com/robustream/robustream/sources/jsonl"
	"github.com/robustream/robustream/streams"
)

// ingestMaxBody bounds a POST /v1/documents body (413 above it).
const ingestMaxBody = 32 << 20

// ingestWait bounds how long a request waits for its documents to be
// written to Kafka (503 after it).
const ingestWait = 30 * time.Second

// ingestTokenFile holds the ingest token of a data dir when no API token is
// configured: the ingest API always needs a token, even on loopback.
const ingestTokenFile = "ingest-token"

// ingestAPI is POST /v1/documents and DELETE /v1/documents/{id}.
type ingestAPI struct {
	src   *ingest.Source
	token string
}

// startIngest makes the ingest source for run's HTTP server: its
// documents go through sources.Versioned like any source's. The token is
// the API token when one is configured, else the data dir's ingest token
// (created on first use, mode 0600).
func (e *engine) startIngest(ctx context.Context, apiToken string) (*ingestAPI, *sources.Versioned, error) {
	token := apiToken
	if token == "" {
		var err error
		if token, err = ingestToken(e.cfg.DataDir, true); err != nil {
			return nil, nil, err
		}
	}
	src := ingest.New()
	st := streams.NewState(e.kafka, "source."+src.Name())
	if err := st.RestoreAll(ctx); err != nil {
		return nil, nil, err
	}
	return &ingestAPI{src: src, token: token}, sources.NewVersioned(src, st, e.kafka.Partitions()), nil
}

// ingestToken reads the data dir's ingest token, creating it when create is
// set and it does not exist. A file other users could read, a link or a
// file of another user is refused.
func ingestToken(dataDir string, create bool) (string, error) {
	path := filepath.Join(dataDir, ingestTokenFile)
	if create {
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			return "", err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if err == nil {
			b := make([]byte, 32)
			if _, err := rand.Read(b); err != nil {
				f.Close()
				return "", err
			}
			tok := hex.EncodeToString(b)
			if _, err := f.WriteString(tok + "\n"); err != nil {
				f.Close()
				return "", err
			}
			return tok, f.Close()
		}
		if !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("ingest token: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return "", fmt.Errorf("ingest token: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	st, _ := info.Sys().(*syscall.Stat_t)
	switch {
	case !info.Mode().IsRegular():
		return "", fmt.Errorf("ingest token: %s is not a regular file", path)
	case info.Mode().Perm()&0o077 != 0:
		return "", fmt.Errorf("ingest token: %s is readable by other users (mode %o); chmod 600 it or delete it to make a new one", path, info.Mode().Perm())
	case st != nil && int(st.Uid) != os.Getuid():
		return "", fmt.Errorf("ingest token: %s belongs to another user", path)
	}
	b := make([]byte, 256)
	n, _ := f.Read(b)
	tok := strings.TrimSpace(string(b[:n]))
	if len(tok) < 32 {
		return "", fmt.Errorf("ingest token: %s holds no usable token; delete it to make a new one", path)
	}
	return tok, nil
}

// ingestAllowed checks the bearer token of an ingest request, whether or
// not the server has an API token: 401 without the right one, 429 once
// the address has used up its wrong tokens.
func (s *server) ingestAllowed(w http.ResponseWriter, r *http.Request) bool {
	if s.ingest == nil {
		http.Error(w, "document ingestion is not running in this process", http.StatusServiceUnavailable)
		return false
	}
	client := "unknown"
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		if ip := net.ParseIP(host); ip != nil {
			client = clientKey(&net.TCPAddr{IP: ip})
		}
	}
	if wait, blocked := s.auth.blocked(client, r.URL.Path); blocked {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())))
		http.Error(w, "too many wrong tokens from this address: try again later", http.StatusTooManyRequests)
		return false
	}
	scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if strings.EqualFold(scheme, "bearer") && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(cred)), []byte(s.ingest.token)) == 1 {
		return true
	}
	if r.Header.Get("Authorization") != "" {
		s.auth.failed(client, r.URL.Path)
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="robustream ingest"`)
	http.Error(w, "ingestion needs Authorization: Bearer <token> (the API token, or the data dir's ingest-token file when none is configured)", http.StatusUnauthorized)
	return false
}

// ingestedDoc is one document of a 202 answer.
type ingestedDoc struct {
	ID      string `json:"id"`
	DocID   string `json:"doc_id"`
	Deleted bool   `json:"deleted,omitempty"`
}

// postDocuments is POST /v1/documents: one JSON record, an array, JSON
// Lines, or a multipart upload of files; 202 with the documents' ids once
// they are written to rs.documents.
func (s *server) postDocuments(w http.ResponseWriter, r *http.Request) {
	if !s.ingestAllowed(w, r) {
		return
	}
	if r.ContentLength > ingestMaxBody {
		http.Error(w, fmt.Sprintf("body of %d bytes is over the %d-byte limit", r.ContentLength, ingestMaxBody), http.StatusRequestEntityTooLarge)
		return
	}
	// The request's context ends when the client goes away: a PDF being
	// converted for it is stopped.
	recs, err := ingest.Decode(r.Context(), r.Header.Get("Content-Type"), http.MaxBytesReader(w, r.Body, ingestMaxBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		http.Error(w, fmt.Sprintf("body is over the %d-byte limit", ingestMaxBody), http.StatusRequestEntityTooLarge)
		return
	case errors.Is(err, ingest.ErrTooMuchText):
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	case r.Context().Err() != nil:
		return // nobody is listening
	case err != nil:
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	docs := make([]*schemas.DocumentVersion, 0, len(recs))
	out := make([]ingestedDoc, 0, len(recs))
	for i, rec := range recs {
		d, err := rec.Document(ingest.SourceName, "ingest:"+rec.ID)
		if err != nil {
			http.Error(w, fmt.Sprintf("document %d: %v", i, err), http.StatusBadRequest)
			return
		}
		docs = append(docs, d)
		out = append(out, ingestedDoc{ID: rec.ID, DocID: d.DocID, Deleted: rec.Deleted})
	}
	if !s.submit(w, r, docs...) {
		return
	}
	s.accepted(w, out)
}

// deleteDocument is DELETE /v1/documents/{id}: the document's deletion,
// which retires its questions; 202 once written. Deleting a document
// never ingested writes nothing (sources.Versioned drops it).
func (s *server) deleteDocument(w http.ResponseWriter, r *http.Request) {
	if !s.ingestAllowed(w, r) {
		return
	}
	rec := &jsonl.Record{ID: r.PathValue("id"), Deleted: true}
	d, err := rec.Document(ingest.SourceName, "ingest:"+rec.ID)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if !s.submit(w, r, d) {
		return
	}
	s.accepted(w, []ingestedDoc{{ID: rec.ID, DocID: d.DocID, Deleted: true}})
}

func (s *server) submit(w http.ResponseWriter, r *http.Request, docs ...*schemas.DocumentVersion) bool {
	ctx, cancel := context.WithTimeout(r.Context(), ingestWait)
	defer cancel()
	err := s.ingest.src.Submit(ctx, docs...)
	switch {
	case err == nil:
		return true
	case errors.Is(err, streams.ErrTooLarge):
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, ingest.ErrClosed):
		w.Header().Set("Retry-After", "5")
		http.Error(w, "documents not written: "+err.Error(), http.StatusServiceUnavailable)
	default:
		s.e.log.Warn("ingest: cannot write documents", "err", err)
		http.Error(w, "documents not written: "+err.Error(), http.StatusServiceUnavailable)
	}
	return false
}

func (s *server) accepted(w http.ResponseWriter, docs []ingestedDoc) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	json.NewEncoder(w).Encode(map[string]any{"accepted": len(docs), "documents": docs})
}
