package question

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// StageName is the name of the question stage (robustream run --stages questions).
const StageName = "questions"

// GeneratorTemplate is the Generator value of questions from this package.
const GeneratorTemplate = "template"

// Config configures the question stage.
type Config struct {
	// Patterns bounds pattern enumeration and sets the single-hop rule.
	Patterns PatternLimits `yaml:"patterns"`
	// Writer is "template" (the default, offline) or "llm": the generator
	// of models.yaml phrases each question with a prompt for its pattern,
	// the template's question standing in when its reply is unusable.
	Writer string `yaml:"writer" help:"who phrases questions: template (offline) or llm (the generator of models.yaml)"`
	// LLMChecks scores every question with the generator (reasonableness,
	// clarity, correctness on 1–5) and keeps those above 3 on all three.
	LLMChecks bool `yaml:"llm_checks" help:"score questions with the generator and keep those above 3 on all checks"`
	// Logger receives warnings (a missing generator, failed LLM calls).
	Logger *slog.Logger `yaml:"-"`
}

// Validate reports every error of the configuration.
func (c Config) Validate() error {
	var errs []error
	l := c.Patterns
	if l.MaxHops != 0 && (l.MaxHops < 1 || l.MaxHops > 5) {
		errs = append(errs, fmt.Errorf("stages.questions.patterns.max_hops: %d is out of range 1..5", l.MaxHops))
	}
	if l.HubDegree < 0 || l.PerDocument < 0 {
		errs = append(errs, errors.New("stages.questions.patterns: hub_degree and per_document must be >= 0"))
	}
	if c.Writer != "" && c.Writer != GeneratorTemplate && c.Writer != GeneratorLLM {
		errs = append(errs, fmt.Errorf("stages.questions.writer: %q is neither template nor llm", c.Writer))
	}
	if l.SingleHop != "" && l.SingleHop != "unique" && l.SingleHop != "rare" {
		errs = append(errs, fmt.Errorf("stages.questions.patterns.single_hop: %q is neither unique nor rare", l.SingleHop))
	}
	return errors.Join(errs...)
}

// Stage is the "questions" processor. It reads rs.triplets — the edges, and
// the End record closing each chunk, from which it learns when a document
// version is complete —, keeps the knowledge graph, and writes to rs.questions the questions that
// become askable and, marked Retired, those that stop being so.
//
// The graph spans documents, so it has one owner: the stage is a
// singleton (streams.Stage.Singleton) — every partition of its inputs is
// assigned to one engine process, which restores the whole graph from the
// changelog before it consumes. Its state is keyed by document (edges,
// chunk texts, version records), so each key lives in the changelog
// partition of its document and a failover restores it exactly.
type Stage struct {
	cfg   Config
	state *streams.State

	mu    sync.Mutex
	k     *Knowledge
	gen   provider.Generator
	embed provider.Embedder
}

var _ streams.Processor = (*Stage)(nil)

// RejectNoTemplate is the reason of an instance no question template fits.
const RejectNoTemplate = "no_template"

// Reasons lists every reason a pattern instance can be turned down for.
var Reasons = []string{RejectNoTemplate, CheckAnswerNonEmpty, CheckAnswerInChunk, CheckQuestionDiffers,
	CheckAnswerNotInQuestion, CheckSubjectNamed, CheckAnswerWhole, CheckAnswerSpecific, CheckQuestionSpecific, RejectAmbiguous, RejectOneChunk,
	RejectHubPivot, RejectRedundant, RejectDuplicate, RejectDegree, RejectPivotNamed, RejectPeriods, RejectLLMWriter, RejectLLMScore, RejectLLMScorer, RejectEmbedder}

// NewStage returns the question stage; state may be nil (nothing
// persisted: tests and benchmarks).
func NewStage(cfg Config, state *streams.State) (*Stage, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Stage{cfg: cfg, state: state, k: NewKnowledge(cfg.Patterns)}, nil
}

// SetGenerator gives the stage the generator LLM of models.yaml, for the
// writer and the QA scores when the configuration asks for them.
func (s *Stage) SetGenerator(g provider.Generator) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen = g
	s.applyLLM()
}

// SetEmbedder gives the stage the embedder of models.yaml: D_r becomes the
// embedding cosine (sim_func embedding_cosine).
func (s *Stage) SetEmbedder(e provider.Embedder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embed = e
	s.k.SetEmbedder(e)
}

func (s *Stage) applyLLM() {
	var w *LLMWriter
	var sc *LLMScorer
	if s.gen != nil && s.cfg.Writer == GeneratorLLM {
		w = NewLLMWriter(s.gen)
	}
	if s.gen != nil && s.cfg.LLMChecks {
		sc = NewLLMScorer(s.gen)
	}
	s.k.SetLLM(w, sc, s.cfg.Logger)
}

// Degraded says what the configuration asks of the generator that the
// stage cannot do without one ("" when nothing).
func (s *Stage) Degraded() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == nil && (s.cfg.Writer == GeneratorLLM || s.cfg.LLMChecks) {
		return "stages.questions asks for the LLM writer or checks, but models.yaml has no generator: template questions, rule checks only"
	}
	return ""
}

// Name implements streams.Processor.
func (s *Stage) Name() string { return StageName }

// Rejected returns, per reason, how many pattern instances with a new edge
// yielded no question since the stage started.
func (s *Stage) Rejected() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.k.Rejected)
}

// Knowledge returns the stage's graph and questions; the caller must not
// use it while the stage runs.
func (s *Stage) Knowledge() *Knowledge { return s.k }

// State keys.
const (
	keyEdge  = "e/"
	keyChunk = "c/"
	keyDoc   = "d/"
	keyHeld  = "h/" // h/<doc_id>/<triplet_id>: a triplet of a version still arriving
	keyLives = "r/" // r/<question_id as built>: how often it was retired (Knowledge.Lives)
)

// persist writes what a change did to the graph to the state.
func (s *Stage) persist(ctx context.Context, c *Change) error {
	if s.state == nil {
		return nil
	}
	for _, t := range c.Stored {
		text := t.ChunkText
		stored := *t
		stored.ChunkText = ""
		b, _ := json.Marshal(&stored)
		if err := s.state.Put(ctx, keyEdge+EdgeKey(t), b); err != nil {
			return err
		}
		if _, ok := s.state.Get(keyChunk + t.ChunkID); !ok {
			if err := s.state.Put(ctx, keyChunk+t.ChunkID, []byte(text)); err != nil {
				return err
			}
		}
	}
	for _, id := range c.RemovedEdges {
		if err := s.state.Delete(ctx, keyEdge+id); err != nil {
			return err
		}
	}
	for _, id := range c.Released {
		if err := s.state.Delete(ctx, keyHeld+id); err != nil {
			return err
		}
	}
	for _, id := range c.Lives {
		n := strconv.FormatUint(uint64(s.k.Lives(id)), 10)
		if err := s.state.Put(ctx, keyLives+id, []byte(n)); err != nil {
			return err
		}
	}
	return nil
}

// Restored implements streams.Restorer: the graph is rebuilt from the
// restored state, and the questions it supports are recomputed without
// being emitted again.
func (s *Stage) Restored(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.k = NewKnowledge(s.cfg.Patterns)
	s.applyLLM()
	s.k.SetEmbedder(s.embed)
	if s.state == nil {
		return nil
	}
	chunks := map[string]string{}
	var edges, held []*schemas.Triplet
	var err error
	s.state.Range(func(key string, v []byte) bool {
		switch {
		case strings.HasPrefix(key, keyChunk):
			chunks[key[len(keyChunk):]] = string(v)
		case strings.HasPrefix(key, keyDoc):
			d := new(DocVersions)
			if err = json.Unmarshal(v, d); err != nil {
				return false
			}
			s.k.SetDoc(key[len(keyDoc):], d)
		case strings.HasPrefix(key, keyHeld):
			t := new(schemas.Triplet)
			if err = json.Unmarshal(v, t); err != nil {
				return false
			}
			held = append(held, t)
		case strings.HasPrefix(key, keyLives):
			var n uint64
			if n, err = strconv.ParseUint(string(v), 10, 32); err != nil {
				return false
			}
			s.k.SetLives(key[len(keyLives):], uint32(n))
		case strings.HasPrefix(key, keyEdge):
			t := new(schemas.Triplet)
			if err = json.Unmarshal(v, t); err != nil {
				return false
			}
			edges = append(edges, t)
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("cannot restore the knowledge graph: %w", err)
	}
	slices.SortFunc(edges, func(a, b *schemas.Triplet) int { return strings.Compare(a.TripletID, b.TripletID) })
	for _, t := range edges {
		s.k.g.Add(EdgeOf(t), chunks[t.ChunkID])
	}
	for _, t := range held {
		s.k.Hold(t)
	}
	s.k.Rebuild()
	return nil
}

// Process implements streams.Processor. A malformed chunk or triplet is
// permanent. Ids are deterministic, so a replay changes nothing.
func (s *Stage) Process(ctx context.Context, m streams.Message) ([]streams.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var t schemas.Triplet
	if err := schemas.Decode(m.Value, &t); err != nil {
		return nil, streams.Permanent(fmt.Errorf("cannot decode triplet: %w", err))
	}
	if t.ChunkID == "" || t.DocID == "" || (!t.End && t.TripletID == "") {
		return nil, streams.Permanent(errors.New("triplet has no triplet_id, chunk_id or doc_id"))
	}
	var c Change
	if t.End {
		c = s.k.ChunkDoneAt(t.DocID, t.ChunkID, t.DocVersion, t.Chunks, m.Partition, m.Offset)
		if s.state != nil {
			b, _ := json.Marshal(s.k.Doc(t.DocID))
			if err := s.state.Put(ctx, keyDoc+t.DocID, b); err != nil {
				return nil, err
			}
		}
	} else {
		var held bool
		if c, held = s.k.AddTriplet(&t); held && s.state != nil {
			b, _ := json.Marshal(&t)
			if err := s.state.Put(ctx, keyHeld+t.DocID+"/"+t.TripletID, b); err != nil {
				return nil, err
			}
		}
	}
	if err := s.persist(ctx, &c); err != nil {
		return nil, err
	}
	out := make([]streams.Record, 0, len(c.New)+len(c.Retired))
	for _, q := range append(c.Retired, c.New...) {
		b, err := schemas.Encode(q)
		if err != nil {
			return nil, fmt.Errorf("cannot encode question: %w", err)
		}
		out = append(out, streams.Record{Topic: streams.TopicQuestions, Key: []byte(q.QuestionID), Value: b})
	}
	return out, nil
}
