package perturb

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/robustream/robustream/processors/text"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources/demo"
)

// sureQuestions generates n questions over the demo feed's documents of
// several periods and seeds: each golden context is one or two documents'
// texts (split at their title as chunks are), and the answer is a word or
// figure of a sentence picked at random, so the answer's place, the
// documents and the question ids vary across thousands of cases.
func sureQuestions(t *testing.T, n int) []*schemas.Question {
	t.Helper()
	var docs []string
	for seed := int64(1); seed <= 3; seed++ {
		for period := 0; period < 4; period++ {
			for _, d := range demo.Generate(seed, period) {
				docs = append(docs, d.Text)
			}
		}
	}
	if len(docs) < 50 {
		t.Fatalf("only %d demo documents", len(docs))
	}
	rng := rand.New(rand.NewPCG(7, 11))
	token := regexp.MustCompile(`\$?[0-9][0-9.,]*%?|[A-Z][a-z]{3,}`)
	var qs []*schemas.Question
	for i := 0; len(qs) < n; i++ {
		ctxs := []string{docs[rng.IntN(len(docs))]}
		if rng.IntN(3) == 0 {
			ctxs = append(ctxs, docs[rng.IntN(len(docs))])
		}
		ss := BodySentences(ctxs[0])
		s := ss[rng.IntN(len(ss))]
		ws := token.FindAllString(s, -1)
		if len(ws) == 0 {
			continue
		}
		qs = append(qs, &schemas.Question{QuestionID: fmt.Sprintf("gen-%05d", i), Question: "What is asked about " + s[:min(20, len(s))] + "?",
			Answer: strings.TrimRight(ws[rng.IntN(len(ws))], ".,"), GTChunks: ctxs})
	}
	return qs
}

// bodyOf reads the document's body back out of a variant context of kind,
// as a person or a parser would: the JSON and YAML text field, the HTML
// paragraphs unescaped, the lines under the title.
func bodyOf(t *testing.T, kind, title, c string) string {
	t.Helper()
	switch {
	case kind == KindFormatJSON:
		var v struct{ Title, Text string }
		if err := json.Unmarshal([]byte(c), &v); err != nil {
			t.Fatalf("format_json is not JSON: %v\n%s", err, c)
		}
		return v.Text
	case kind == KindFormatYAML:
		var v struct {
			Title string `yaml:"Title"`
			Text  string `yaml:"Text"`
		}
		if err := yaml.Unmarshal([]byte(c), &v); err != nil {
			t.Fatalf("format_yaml is not YAML: %v\n%s", err, c)
		}
		return v.Text
	case kind == KindFormatHTML || strings.HasPrefix(kind, "meta_"):
		if !strings.HasPrefix(c, "<html") || !strings.HasSuffix(c, "</html>") {
			t.Fatalf("%s is not an HTML page:\n%s", kind, c)
		}
		var ps []string
		for _, m := range regexp.MustCompile(`(?s)<p>(.*?)</p>`).FindAllStringSubmatch(c, -1) {
			ps = append(ps, html.UnescapeString(m[1]))
		}
		return strings.Join(ps, "\n\n")
	default: // markdown, logic, clean: the title line, a blank line, the body
		if title == "" {
			return c
		}
		head, body, _ := strings.Cut(c, "\n\n")
		if strings.TrimPrefix(head, "# ") != title {
			t.Fatalf("%s: title line %q, want %q", kind, head, title)
		}
		return body
	}
}

func sortedSentences(s string) []string {
	ss := BodySentences(s)
	slices.Sort(ss)
	return ss
}

// TestSpuriousVariantsProperties: over thousands of generated questions,
// every golden variant keeps an accepted answer, no noise variant holds one,
// each variant's contexts hold exactly the sentences of the contexts they
// were made from (format and metadata kinds wrap them, logic kinds reorder
// them), the metadata kinds carry their meta line, and a second run makes
// byte-identical variants. Every cell is made here (SURECells = 0).
func TestSpuriousVariantsProperties(t *testing.T) {
	defer func(c int) { SURECells = c }(SURECells)
	SURECells = 0
	qs := sureQuestions(t, 3000)
	newStage := func() *Stage {
		st, err := NewStage(Config{WordNetDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Kinds: SpuriousKinds()})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	first, second := newStage(), newStage()
	made := map[string]int{}
	for _, q := range qs {
		answers := text.NewAnswers(q.Accepted())
		vs := first.Variants(q)
		again := second.Variants(q)
		if len(vs) != len(again) {
			t.Fatalf("%s: %d variants, then %d", q.QuestionID, len(vs), len(again))
		}
		for i, v := range vs {
			if v.VariantID != again[i].VariantID || !slices.Equal(v.Contexts, again[i].Contexts) {
				t.Fatalf("%s %s: not identical across runs", q.QuestionID, v.Kind)
			}
			if v.Axis != schemas.AxisSpurious {
				continue
			}
			made[v.Kind]++
			noise := strings.HasSuffix(v.Kind, SURENoiseSuffix)
			kind := strings.TrimSuffix(v.Kind, SURENoiseSuffix)
			covered := answers.Covered(strings.Join(v.Contexts, "\n"))
			if covered == noise || v.AnswerAvailable == noise {
				t.Fatalf("%s %s: answer covered %v, available %v:\n%s", q.QuestionID, v.Kind, covered, v.AnswerAvailable, strings.Join(v.Contexts, "\n----\n"))
			}
			sources := q.GTChunks
			if noise {
				var err error
				if sources, err = NoiseContexts(q.GTChunks, answers); err != nil {
					t.Fatalf("%s %s made without a noise context: %v", q.QuestionID, v.Kind, err)
				}
			}
			for j, c := range v.Contexts {
				want := sortedSentences(splitTitle(sources[j]).Body)
				got := sortedSentences(bodyOf(t, kind, splitTitle(sources[j]).Title, c))
				if !slices.Equal(got, want) {
					t.Fatalf("%s %s context %d: sentences changed\ngot  %q\nwant %q\n%s", q.QuestionID, v.Kind, j, got, want, c)
				}
				if title := splitTitle(sources[j]).Title; title != "" && !strings.Contains(html.UnescapeString(c), title) {
					t.Fatalf("%s %s context %d: title %q lost:\n%s", q.QuestionID, v.Kind, j, title, c)
				}
				switch kind {
				case KindMetaTimestampPre, KindMetaTimestampPost:
					m := regexp.MustCompile(`<meta name="timestamp" content="(\d{4}-\d\d-\d\d)">`).FindStringSubmatch(c)
					if m == nil {
						t.Fatalf("%s: no timestamp meta:\n%s", v.Kind, c)
					}
					if before := m[1] < defaultKnowledgeCutoff; before != (kind == KindMetaTimestampPre) {
						t.Fatalf("%s: timestamp %s on the wrong side of the cut-off %s", v.Kind, m[1], defaultKnowledgeCutoff)
					}
				case KindMetaSourceWiki, KindMetaSourceTwitter:
					site := map[string]string{KindMetaSourceWiki: "https://en.wikipedia.org/wiki/", KindMetaSourceTwitter: "https://twitter.com/"}[kind]
					if !strings.Contains(c, `<meta name="datasource" content="`+site) {
						t.Fatalf("%s: no %s datasource meta:\n%s", v.Kind, site, c)
					}
				}
			}
		}
	}
	// Every cell is made for most questions: the checks above ran on each.
	for _, k := range SpuriousKinds() {
		if made[k.Name] < len(qs)/2 {
			t.Errorf("%s made for %d of %d questions (skips: %v)", k.Name, made[k.Name], len(qs), first.SkipReasons()[k.Name])
		}
	}
	t.Logf("variants made per cell over %d questions: %v; skips: %v", len(qs), made, first.SkipReasons())
}

// TestSURESample: with the default cap, each question gets SURECells of the
// twenty cells (fewer only when one cannot be made), plus the clean cells
// its sampled cells compare with, the same on every run.
func TestSURESample(t *testing.T) {
	qs := sureQuestions(t, 400)
	st, err := NewStage(Config{WordNetDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Kinds: SpuriousKinds()})
	if err != nil {
		t.Fatal(err)
	}
	perCell := map[string]int{}
	for _, q := range qs {
		n, golden, noise := 0, 0, 0
		for _, k := range SUREKinds {
			for _, nz := range []bool{false, true} {
				if sampled(q.QuestionID, sureCell(k, nz)) {
					n++
					perCell[sureCell(k, nz)]++
					if nz {
						noise++
					} else {
						golden++
					}
				}
			}
		}
		if n != DefaultSURECells {
			t.Fatalf("%s: %d cells sampled, want %d", q.QuestionID, n, DefaultSURECells)
		}
		vs := st.Variants(q)
		kinds := map[string]bool{}
		for _, v := range vs {
			kinds[v.Kind] = true
			if v.Axis == schemas.AxisSpurious && v.Kind != KindSUREClean && v.Kind != KindSUREClean+SURENoiseSuffix && !sampled(q.QuestionID, v.Kind) {
				t.Fatalf("%s: %s made outside the sample", q.QuestionID, v.Kind)
			}
		}
		if kinds[KindSUREClean] != (golden > 0) {
			t.Errorf("%s: clean made %v with %d golden cells", q.QuestionID, kinds[KindSUREClean], golden)
		}
		if kinds[KindSUREClean+SURENoiseSuffix] && noise == 0 {
			t.Errorf("%s: clean_noise made with no noise cell", q.QuestionID)
		}
	}
	// A hash sample spreads the questions over the cells: each of the 20
	// gets about 400 × 4 / 20 = 80.
	for cell, n := range perCell {
		if n < 40 || n > 130 {
			t.Errorf("cell %s sampled for %d of %d questions, want about 80", cell, n, len(qs))
		}
	}
}
