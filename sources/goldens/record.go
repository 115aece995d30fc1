package goldens

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources/jsonl"
)

// Record is one curated question as a team writes it.
type Record struct {
	ID          string   `json:"id"`
	Question    string   `json:"question"`
	Answer      string   `json:"answer"`
	Aliases     []string `json:"aliases"`
	Contexts    []string `json:"contexts"`
	PublishedAt string   `json:"published_at"`
	Domain      string   `json:"domain"`
	Pattern     string   `json:"pattern"`
	Hops        int      `json:"hops"`
}

// Limits of a record.
const (
	maxIDBytes      = 1024
	maxContextBytes = 256 << 10
	maxContexts     = 32
)

// patterns are the pattern values a record may give.
var patterns = []string{schemas.PatternSingle, schemas.PatternChain, schemas.PatternStar, schemas.PatternInvertedStar, schemas.PatternPath}

// Parse decodes and checks one record. A field the format does not have is
// an error naming it ("ground_truth" for "answer" would otherwise lose the
// answer without a word).
func Parse(b []byte) (*Record, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r Record
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a goldens record: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not a goldens record: more than one JSON value")
	}
	return &r, r.check()
}

// check normalises the record and reports what makes it unusable.
func (r *Record) check() error {
	r.ID = strings.TrimSpace(r.ID)
	r.Question = strings.TrimSpace(r.Question)
	r.Answer = strings.TrimSpace(r.Answer)
	r.Domain = strings.TrimSpace(r.Domain)
	switch {
	case len(r.ID) > maxIDBytes:
		return fmt.Errorf("id is %d bytes, over %d", len(r.ID), maxIDBytes)
	case r.Question == "":
		return errors.New("record has no question")
	case r.Answer == "":
		return errors.New("record has no answer")
	case len(r.Contexts) == 0:
		return errors.New("record has no contexts (the passages that hold the answer)")
	case len(r.Contexts) > maxContexts:
		return fmt.Errorf("record has %d contexts, over %d", len(r.Contexts), maxContexts)
	}
	texts := append([]string{r.ID, r.Question, r.Answer, r.Domain}, r.Aliases...)
	var aliases []string
	for _, a := range r.Aliases {
		if a = strings.TrimSpace(a); a != "" && a != r.Answer && !contains(aliases, a) {
			aliases = append(aliases, a)
		}
	}
	r.Aliases = aliases
	for i, c := range r.Contexts {
		c = strings.TrimSpace(strings.ReplaceAll(c, "\r\n", "\n"))
		switch {
		case c == "":
			return fmt.Errorf("contexts[%d] is empty", i)
		case len(c) > maxContextBytes:
			return fmt.Errorf("contexts[%d] is %d bytes, over %d", i, len(c), maxContextBytes)
		}
		r.Contexts[i] = c
		texts = append(texts, c)
	}
	for _, s := range texts {
		if !utf8.ValidString(s) {
			return errors.New("record is not valid UTF-8")
		}
	}
	if r.Pattern != "" && !contains(patterns, r.Pattern) {
		return fmt.Errorf("pattern %q is not one of %s", r.Pattern, strings.Join(patterns, ", "))
	}
	if r.Hops < 0 || r.Hops > 255 {
		return fmt.Errorf("hops %d is not between 1 and 255", r.Hops)
	}
	if _, err := r.published(); err != nil {
		return err
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// published is the record's published_at in UTC (zero when it gives none),
// read as a jsonl record's is.
func (r *Record) published() (time.Time, error) {
	return (&jsonl.Record{PublishedAt: r.PublishedAt}).Published()
}

// key is what identifies the record: its id, else its question.
func (r *Record) key() string {
	if r.ID != "" {
		return "id:" + r.ID
	}
	return "question:" + r.Question
}

// QuestionID is the question id of a checked record.
func (r *Record) QuestionID() string { return schemas.ID(SourceName, r.key()) }

// ContextDocID is the document id of a context.
func ContextDocID(text string) string { return schemas.ID(SourceName, "context", text) }

// documents returns the record's contexts as documents, in order
// (duplicates within the record once).
func (r *Record) documents(uri string, published time.Time) []*schemas.DocumentVersion {
	var out []*schemas.DocumentVersion
	seen := map[string]bool{}
	for _, c := range r.Contexts {
		id := ContextDocID(c)
		if seen[id] {
			continue
		}
		seen[id] = true
		sum := sha256.Sum256([]byte(c))
		d := &schemas.DocumentVersion{
			DocID:       id,
			Version:     1, // sources.Versioned assigns versions
			Source:      SourceName,
			URI:         uri,
			Title:       title(r),
			Domain:      r.domain(),
			PublishedAt: published,
			FetchedAt:   time.Now().UTC(),
			ContentHash: hex.EncodeToString(sum[:]),
			MIME:        "text/plain",
			Text:        c,
			Metadata:    map[string]string{schemas.MetaChunking: schemas.ChunkWhole, "curated": "true"},
		}
		if published.IsZero() {
			d.Metadata["published_at_from"] = "none"
		} else {
			d.Metadata["published_at_from"] = "record"
		}
		if r.ID != "" {
			d.Metadata["record_id"] = r.ID
		}
		schemas.Stamp(d, schemas.ID(d.DocID, d.ContentHash))
		out = append(out, d)
	}
	return out
}

// title names a context document after the first record that has it.
func title(r *Record) string {
	if r.ID != "" {
		return "goldens " + r.ID
	}
	q := []rune(r.Question)
	if len(q) > 80 {
		q = append(q[:80], '…')
	}
	return "goldens: " + string(q)
}

func (r *Record) domain() string {
	if r.Domain == "" {
		return jsonl.DefaultDomain
	}
	return r.Domain
}

// question returns the curated question of a checked record, D_r and the
// like left to score.
func (r *Record) question(published time.Time) *schemas.Question {
	var ids, chunks []string
	seen := map[string]bool{}
	for _, c := range r.Contexts {
		id := ContextDocID(c)
		if seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, schemas.ID(id, c)) // the chunk stage's id of a whole chunk
		chunks = append(chunks, c)
	}
	pattern, hops := r.Pattern, r.Hops
	if hops == 0 {
		hops = len(chunks)
	}
	if pattern == "" {
		pattern = schemas.PatternSingle
		if hops > 1 {
			pattern = schemas.PatternPath
		}
	}
	q := &schemas.Question{
		QuestionID:  r.QuestionID(),
		Question:    r.Question,
		Answer:      r.Answer,
		Aliases:     r.Aliases,
		Pattern:     pattern,
		Hops:        uint8(hops),
		TripletIDs:  []string{},
		GTChunkIDs:  ids,
		GTChunks:    chunks,
		Generator:   schemas.GeneratorGoldens,
		DocID:       ContextDocID(chunks[0]),
		Domain:      r.domain(),
		PublishedAt: published,
	}
	return q
}
