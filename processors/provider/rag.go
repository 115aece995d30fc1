package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// RAGEndpointOptions configures a client of a RAG service treated as a
// black box: it gets the question, retrieves its own contexts and answers.
// The errors of NewRAGEndpoint start with the option's models.yaml key.
type RAGEndpointOptions struct {
	// URL is the service's endpoint, http or https. Required.
	URL string
	// Method is POST (the default: the question goes into a JSON body) or
	// GET (the question goes into a query parameter).
	Method string
	// Headers are sent with every request. A value may reference
	// environment variables as ${NAME}, read when the client is made; an
	// unset variable is an error naming it. Values are never printed.
	Headers map[string]string
	// QuestionField is where the question goes: a dotted path into the
	// request body for POST ("input.query" sends {"input": {"query": …}}),
	// the query parameter's name for GET. Default "question".
	QuestionField string
	// AnswerField is the dotted path of the answer in the response body
	// ("data.answer"); a segment that is a number indexes a list
	// ("choices.0.text"). Default "answer". The value must be a string or
	// a number.
	AnswerField string
	// ContextsField is the dotted path of the retrieved contexts, a list
	// whose items are strings or objects holding the text under the first
	// of the keys in ContextTextKeys. Empty: contexts are not read. A
	// missing or null list means none were retrieved.
	ContextsField string
	// ContextSourceField and ContextScoreField are dotted paths inside a
	// context object to the passage's source (a document name, URL or id:
	// a string or a number) and its retrieval score (a number). Empty: the
	// first of ContextSourceKeys, ContextScoreKeys the object holds.
	// Sources are kept when any passage has one (the others ""), scores
	// only when every passage has one.
	ContextSourceField string
	ContextScoreField  string
	// Timeout bounds each HTTP call, reply included. Zero: DefaultTimeout.
	Timeout time.Duration
	// MaxInFlight is reported by Limits for the dispatcher; 0 = auto.
	MaxInFlight int
	// HTTPClient sends the requests. Nil: a client of its own.
	HTTPClient *http.Client
	// LookupEnv reads the ${NAME} references of Headers. Nil: os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// ContextTextKeys are the keys a context object may hold its text under,
// tried in this order: the names LlamaIndex, LangChain (page_content) and
// most retrieval APIs use.
var ContextTextKeys = []string{"text", "content", "page_content", "chunk"}

// ContextSourceKeys and ContextScoreKeys are the paths a context object may
// hold its source and its score under, tried in this order when
// ContextSourceField or ContextScoreField is not set.
var (
	ContextSourceKeys = []string{"source", "url", "doc_id", "document_id", "id", "metadata.source", "metadata.url"}
	ContextScoreKeys  = []string{"score", "relevance_score", "similarity", "distance_score"}
)

// RAGEndpoint is a model under test that is a whole RAG service behind an
// HTTP endpoint. It sends only the question and reads back the answer and,
// when configured, the contexts the service retrieved. Every error is a
// *CallError, classified like OpenAI's, unless the caller's context ended.
type RAGEndpoint struct {
	id            string
	method        string
	url           *url.URL
	questionField string
	answerPath    []string
	contextsPath  []string // nil: not read
	sourcePaths   [][]string
	scorePaths    [][]string
	limits        Limits
	remote        *remote
}

var _ Model = (*RAGEndpoint)(nil)

// NewRAGEndpoint returns a client with the given model id, applying
// defaults and validating opts; the error lists every problem, each
// starting with the option's models.yaml key. It makes no network call.
func NewRAGEndpoint(id string, opts RAGEndpointOptions) (*RAGEndpoint, error) {
	var errs []error
	fail := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{key}, args...)...))
	}
	if id == "" {
		fail("id", "missing")
	}
	u, err := parseHTTPURL(opts.URL)
	if err != nil {
		fail("url", "%v", err)
	}
	switch m := strings.ToUpper(opts.Method); m {
	case "":
		opts.Method = http.MethodPost
	case http.MethodPost, http.MethodGet:
		opts.Method = m
	default:
		fail("method", "%q is not POST or GET", opts.Method)
	}

	header := http.Header{}
	var secrets []string
	lookup := lookupEnv(opts.LookupEnv)
	names := make([]string, 0, len(opts.Headers))
	for name := range opts.Headers {
		names = append(names, name)
	}
	slices.Sort(names) // errors in a stable order
	for _, name := range names {
		raw := opts.Headers[name]
		if !isHeaderName(name) {
			fail("headers", "%q is not a header name", name)
			continue
		}
		v, err := expandEnv(raw, func(k string) (string, bool) {
			v, ok := lookup(k)
			if ok && v != "" {
				secrets = append(secrets, v)
			}
			return v, ok
		})
		if err != nil {
			fail("headers."+name, "%v", err)
			continue
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			fail("headers."+name, "the value holds a line break or NUL") // not echoed
			continue
		}
		if v != raw {
			secrets = append(secrets, v)
		}
		header.Add(name, v)
	}

	if opts.QuestionField == "" {
		opts.QuestionField = "question"
	}
	if opts.Method == http.MethodPost && !validPath(opts.QuestionField) {
		fail("question_field", "%q has an empty segment", opts.QuestionField)
	}
	if opts.AnswerField == "" {
		opts.AnswerField = "answer"
	}
	if !validPath(opts.AnswerField) {
		fail("answer_field", "%q has an empty segment", opts.AnswerField)
	}
	if opts.ContextsField != "" && !validPath(opts.ContextsField) {
		fail("contexts_field", "%q has an empty segment", opts.ContextsField)
	}
	for _, f := range []struct{ key, v string }{{"context_source_field", opts.ContextSourceField}, {"context_score_field", opts.ContextScoreField}} {
		if f.v != "" && !validPath(f.v) {
			fail(f.key, "%q has an empty segment", f.v)
		}
	}
	switch {
	case opts.Timeout < 0:
		fail("timeout", "%s is negative", opts.Timeout)
	case opts.Timeout == 0:
		opts.Timeout = DefaultTimeout
	}
	errs = append(errs, validateLimits(Limits{MaxInFlight: opts.MaxInFlight})...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	r := &RAGEndpoint{
		id:            id,
		method:        opts.Method,
		url:           u,
		questionField: opts.QuestionField,
		answerPath:    strings.Split(opts.AnswerField, "."),
		limits:        Limits{MaxInFlight: opts.MaxInFlight},
		remote:        newRemote(id, opts.HTTPClient, opts.Timeout, header, secrets),
	}
	if opts.ContextsField != "" {
		r.contextsPath = strings.Split(opts.ContextsField, ".")
	}
	r.sourcePaths, r.scorePaths = paths(opts.ContextSourceField, ContextSourceKeys), paths(opts.ContextScoreField, ContextScoreKeys)
	return r, nil
}

// validPath reports whether a dotted path has no empty segment.
func validPath(p string) bool {
	return !slices.Contains(strings.Split(p, "."), "")
}

// isHeaderName reports whether s is an HTTP field name (RFC 9110 §5.1: a
// token).
func isHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// ID implements Model.
func (r *RAGEndpoint) ID() string { return r.id }

// Limits returns the dispatch limits the configuration gave.
func (r *RAGEndpoint) Limits() Limits { return r.limits }

// String names the client without its headers.
// Retrieves implements the retrieving side of Retrieves: the service finds
// its own contexts.
func (r *RAGEndpoint) Retrieves() bool { return true }

func (r *RAGEndpoint) String() string {
	return fmt.Sprintf("rag-endpoint %s (%s %s)", r.id, r.method, endpointName(r.url))
}

// Answer implements Model: it sends q.Question alone (the service retrieves
// its own contexts) and returns the answer, trimmed, with the contexts the
// service reports. A reply without the answer field is an ErrRejected
// error (permanent: the same question gets a reply of the same shape)
// naming the path, where it stopped and the keys that were there. Token counts are zero: a black box does not say.
func (r *RAGEndpoint) Answer(ctx context.Context, q Query) (Answer, error) {
	endpoint := endpointName(r.url)
	u, body := r.url, any(nil)
	if r.method == http.MethodGet {
		u = new(url.URL)
		*u = *r.url
		v := u.Query()
		v.Set(r.questionField, q.Question)
		u.RawQuery = v.Encode()
	} else {
		body = nest(strings.Split(r.questionField, "."), q.Question)
	}
	b, err := r.remote.call(ctx, r.method, u, body)
	if err != nil {
		return Answer{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // a numeric answer keeps its digits
	var reply any
	if err := dec.Decode(&reply); err != nil {
		return Answer{}, r.remote.fail(endpoint, 0, ErrUnavailable, "malformed response: "+err.Error(), err)
	}
	var ans Answer
	switch v := lookupPath(reply, r.answerPath).(type) {
	case string:
		ans.Text = strings.TrimSpace(v)
	case json.Number:
		ans.Text = v.String()
	case nil:
		return Answer{}, r.remote.mismatch(endpoint, "no answer at answer_field %s: %s", strings.Join(r.answerPath, "."), PathMiss(reply, r.answerPath))
	default:
		return Answer{}, r.remote.mismatch(endpoint, "the answer at answer_field %s is %s, not a string", strings.Join(r.answerPath, "."), jsonKind(v))
	}
	if r.contextsPath != nil {
		if ans.Contexts, ans.ContextSources, ans.ContextScores, err = r.contexts(lookupPath(reply, r.contextsPath)); err != nil {
			return Answer{}, r.remote.mismatch(endpoint, "contexts at contexts_field %s: %v", strings.Join(r.contextsPath, "."), err)
		}
	}
	return ans, nil
}

// paths is the configured path, or else the default ones, split.
func paths(configured string, defaults []string) [][]string {
	if configured != "" {
		defaults = []string{configured}
	}
	out := make([][]string, len(defaults))
	for i, d := range defaults {
		out[i] = strings.Split(d, ".")
	}
	return out
}

// contexts reads the retrieved contexts: nil for none, else a list of
// strings or of objects with a ContextTextKeys field, and, from the
// objects, their sources and scores (see ContextSourceField).
func (r *RAGEndpoint) contexts(v any) (texts, sources []string, scores []float64, err error) {
	if v == nil {
		return nil, nil, nil, nil
	}
	items, ok := v.([]any)
	if !ok {
		return nil, nil, nil, fmt.Errorf("%s, not a list", jsonKind(v))
	}
	texts = make([]string, 0, len(items))
	sources = make([]string, len(items))
	scores = make([]float64, 0, len(items))
	anySource := false
	for i, it := range items {
		switch it := it.(type) {
		case string:
			texts = append(texts, it)
		case map[string]any:
			text, found := "", false
			for _, k := range ContextTextKeys {
				if s, ok := it[k].(string); ok {
					text, found = s, true
					break
				}
			}
			if !found {
				return nil, nil, nil, fmt.Errorf("item %d has none of the text fields %s", i, strings.Join(ContextTextKeys, ", "))
			}
			texts = append(texts, text)
			for _, p := range r.sourcePaths {
				switch s := lookupPath(it, p).(type) {
				case string:
					sources[i], anySource = s, true
				case json.Number:
					sources[i], anySource = s.String(), true
				case nil:
					continue
				default:
					return nil, nil, nil, fmt.Errorf("item %d: the source at %s is %s, not a string or a number", i, strings.Join(p, "."), jsonKind(s))
				}
				break
			}
			for _, p := range r.scorePaths {
				switch s := lookupPath(it, p).(type) {
				case json.Number:
					f, err := s.Float64()
					if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
						return nil, nil, nil, fmt.Errorf("item %d: the score %s at %s is not a finite number", i, s, strings.Join(p, "."))
					}
					scores = append(scores, f)
				case nil:
					continue
				default:
					return nil, nil, nil, fmt.Errorf("item %d: the score at %s is %s, not a number", i, strings.Join(p, "."), jsonKind(s))
				}
				break
			}
		default:
			return nil, nil, nil, fmt.Errorf("item %d is %s, not a string or an object", i, jsonKind(it))
		}
	}
	if !anySource {
		sources = nil
	}
	if len(scores) != len(texts) || len(scores) == 0 {
		scores = nil
	}
	return texts, sources, scores, nil
}

// nest returns the JSON object that holds v at path.
func nest(path []string, v any) map[string]any {
	obj := map[string]any{path[len(path)-1]: v}
	for i := len(path) - 2; i >= 0; i-- {
		obj = map[string]any{path[i]: obj}
	}
	return obj
}

// lookupPath follows path through decoded JSON: object keys, and list
// indexes for segments that are numbers. Nil when the path leads nowhere.
func lookupPath(v any, path []string) any {
	for _, seg := range path {
		switch cur := v.(type) {
		case map[string]any:
			v = cur[seg]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(cur) {
				return nil
			}
			v = cur[i]
		default:
			return nil
		}
	}
	return v
}

// PathMiss says where path stops leading anywhere in the decoded JSON v:
// the first segment not found and the keys (or the length of the list)
// that were there, such as `no key "data" at the top level; keys there:
// answer, sources`. It is for errors: a misconfigured answer_field is fixed
// by reading it.
func PathMiss(v any, path []string) string {
	at := "the top level"
	for i, seg := range path {
		switch cur := v.(type) {
		case map[string]any:
			next, ok := cur[seg]
			if !ok {
				keys := make([]string, 0, len(cur))
				for k := range cur {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				have := "none"
				if len(keys) > 0 {
					have = strings.Join(keys, ", ")
				}
				return fmt.Sprintf("no key %q at %s; keys there: %s", seg, at, have)
			}
			if next == nil {
				return fmt.Sprintf("%s is null", strings.Join(path[:i+1], "."))
			}
			v = next
		case []any:
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 || n >= len(cur) {
				return fmt.Sprintf("no item %q in the list at %s of %d item(s)", seg, at, len(cur))
			}
			v = cur[n]
		default:
			return fmt.Sprintf("%s is %s, which has no key %q", at, jsonKind(cur), seg)
		}
		at = strings.Join(path[:i+1], ".")
	}
	return at + " is present"
}

// jsonKind names the JSON type of a decoded value, for errors.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	default:
		return "null"
	}
}
