package perturb

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// DefaultWordNetDir is where Debian's wordnet-base package installs the
// WordNet 3.0 dictionary files.
const DefaultWordNetDir = "/usr/share/wordnet"

// ErrUnavailable reports that a perturbation kind cannot run on this
// installation (the WordNet dictionary is missing or unreadable). The stage
// records the kind as skipped instead of failing: a missing resource
// degrades the run visibly, it does not stop it (docs/methods.md, Query
// perturbations).
var ErrUnavailable = errors.New("perturbation kind unavailable")

// The four WordNet parts of speech, in file-name form.
var wordnetPOS = [...]string{"noun", "verb", "adj", "adv"}

// detachments are WordNet's morphological rules (the "morphy" detachment
// table of the WordNet documentation): suffix → replacement, per part of
// speech, tried when a word is not in the exception lists.
var detachments = [len(wordnetPOS)][][2]string{
	{{"s", ""}, {"ses", "s"}, {"ves", "f"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	{{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
	{{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
	nil,
}

// WordNet looks up synonyms in a WordNet dictionary directory (index.*,
// data.* and *.exc files). It loads the files on first use, once; a missing
// directory makes every lookup return ErrUnavailable. It is safe for
// concurrent use.
type WordNet struct {
	dir string

	once  sync.Once
	err   error
	index [len(wordnetPOS)]map[string][]int64  // lemma → synset offsets
	exc   [len(wordnetPOS)]map[string][]string // inflected form → base forms
	data  [len(wordnetPOS)][]byte              // data.* contents; offsets index into them
	// irregular holds the base forms with an irregular inflection (the
	// targets of the exception lists), which inflect refuses to guess.
	irregular [len(wordnetPOS)]map[string]bool
	counts    senseCounts // SemCor tag counts per sense (synonym.go)

	// cache memoizes synonyms by lowercase word. A lookup parses every
	// synset line of every base form, and questions reuse a small
	// vocabulary; the map is emptied when full, which bounds its memory.
	mu    sync.Mutex
	cache map[string][]string
}

// synonymCacheSize bounds WordNet.cache: a few thousand words cover the
// vocabulary of a question stream, and each entry is a few short strings.
const synonymCacheSize = 4096

// NewWordNet returns a WordNet reading dir (DefaultWordNetDir when empty).
// Nothing is read until the first lookup.
func NewWordNet(dir string) *WordNet {
	if dir == "" {
		dir = DefaultWordNetDir
	}
	return &WordNet{dir: dir}
}

// Available loads the dictionary if needed and returns nil, or an error
// wrapping ErrUnavailable.
func (w *WordNet) Available() error {
	w.once.Do(func() { w.err = w.load() })
	return w.err
}

func (w *WordNet) load() error {
	for p, pos := range wordnetPOS {
		data, err := os.ReadFile(filepath.Join(w.dir, "data."+pos))
		if err != nil {
			return fmt.Errorf("%w: wordnet: %v", ErrUnavailable, err)
		}
		w.data[p] = data
		if w.index[p], err = readIndex(filepath.Join(w.dir, "index."+pos)); err != nil {
			return fmt.Errorf("%w: wordnet: %v", ErrUnavailable, err)
		}
		// The exception lists are optional in the format (adv.exc is tiny);
		// without one, morphology falls back to the detachment rules.
		w.exc[p], _ = readExceptions(filepath.Join(w.dir, pos+".exc"))
		w.irregular[p] = make(map[string]bool)
		for _, bases := range w.exc[p] {
			for _, b := range bases {
				w.irregular[p][b] = true
			}
		}
	}
	// The sense counts are what tells a word's usual sense from its rare
	// ones; without them the wordnet kind cannot choose a safe synonym, so
	// the kind is unavailable rather than guessing.
	var err error
	if w.counts, err = readCounts(countsPath(w.dir)); err != nil {
		return fmt.Errorf("%w: wordnet: %v", ErrUnavailable, err)
	}
	return nil
}

// readIndex parses an index.<pos> file: "lemma pos synset_cnt p_cnt
// [ptr_symbol…] sense_cnt tagsense_cnt synset_offset…". The license header
// lines start with a space and are skipped.
func readIndex(path string) (map[string][]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// One entry a line at most: sizing the map up front spares rehashing
	// it a dozen times as it grows to ~100k lemmas.
	m := make(map[string][]int64, bytes.Count(data, []byte{'\n'})+1)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	// The index is loaded on the first question, inside the stage's time:
	// fields are sliced out of the scanner's buffer rather than copied, and
	// the offset lists share large blocks instead of one allocation a line.
	var fs [][]byte
	var block []int64
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] == ' ' {
			continue
		}
		fs = fs[:0]
		fields := fieldScanner{line: line}
		for fl := fields.next(); fl != nil; fl = fields.next() {
			fs = append(fs, fl)
		}
		if len(fs) < 4 {
			return nil, fmt.Errorf("%s: malformed line %q", path, string(line))
		}
		n, err := strconv.Atoi(string(fs[2]))
		if err != nil || n < 0 || n > len(fs)-4 {
			return nil, fmt.Errorf("%s: bad synset count in %q", path, string(line))
		}
		if block == nil || cap(block)-len(block) < n {
			block = make([]int64, 0, max(4096, n))
		}
		start := len(block)
		for _, s := range fs[len(fs)-n:] {
			o, err := strconv.ParseInt(string(s), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: bad offset in %q", path, string(line))
			}
			block = append(block, o)
		}
		// Capped at its length, so that appending to one list can never
		// overwrite the next.
		m[string(fs[0])] = block[start:len(block):len(block)]
	}
	return m, sc.Err()
}

// readExceptions parses a <pos>.exc file: "inflected base [base…]".
func readExceptions(path string) (map[string][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := make(map[string][]string)
	for _, line := range strings.Split(string(b), "\n") {
		if fs := strings.Fields(line); len(fs) >= 2 {
			m[fs[0]] = append(m[fs[0]], fs[1:]...)
		}
	}
	return m, nil
}

// lemmas returns the words of the synset at offset in data file p: the line
// "offset lex_filenum ss_type w_cnt word lex_id [word lex_id…] …", w_cnt in
// hex. Adjective markers such as "(a)" or "(ip)" are stripped.
func (w *WordNet) lemmas(p int, offset int64) []string {
	data := w.data[p]
	if offset < 0 || offset >= int64(len(data)) {
		return nil
	}
	line := data[offset:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	// Only the first 4+2n fields are read, one at a time: the rest of the
	// line (pointers, frames, the gloss) is most of it, and splitting it all
	// with strings.Fields cost more than the rest of a synonym lookup.
	var f fieldScanner
	f.line = line
	for range 3 {
		if f.next() == nil {
			return nil
		}
	}
	cnt := f.next()
	if cnt == nil {
		return nil
	}
	n, err := strconv.ParseInt(string(cnt), 16, 32)
	if err != nil {
		return nil
	}
	// w_cnt is two hex digits in WordNet; a corrupt larger one must not
	// reserve memory for lemmas the line does not have.
	out := make([]string, 0, min(n, 64))
	for range n {
		l, id := f.next(), f.next() // word, lex_id
		if id == nil {
			return nil // fewer fields than w_cnt announces
		}
		if j := bytes.IndexByte(l, '('); j > 0 && bytes.HasSuffix(l, []byte(")")) {
			l = l[:j]
		}
		out = append(out, string(l))
	}
	return out
}

// fieldScanner yields the fields of line one by one, split exactly as
// strings.Fields splits string(line): at runs of unicode.IsSpace, an
// invalid byte counting as a non-space rune.
type fieldScanner struct {
	line []byte
	pos  int
}

// next returns the next field, or nil after the last.
func (f *fieldScanner) next() []byte {
	start := -1
	for f.pos < len(f.line) {
		r, n := rune(f.line[f.pos]), 1
		var space bool
		if r < utf8.RuneSelf {
			space = r == ' ' || '\t' <= r && r <= '\r' // unicode.IsSpace for ASCII
		} else {
			r, n = utf8.DecodeRune(f.line[f.pos:])
			space = unicode.IsSpace(r)
		}
		if space {
			if start >= 0 {
				return f.line[start:f.pos]
			}
		} else if start < 0 {
			start = f.pos
		}
		f.pos += n
	}
	if start >= 0 {
		return f.line[start:]
	}
	return nil
}

// baseForms returns the dictionary forms of word (lowercase) for part of
// speech p, as WordNet's morphy does: the exception list if it names the
// word, else the word and what the detachment rules make of it; only forms
// present in the index are kept.
func (w *WordNet) baseForms(p int, word string) []string {
	cands := []string{word}
	if bases, ok := w.exc[p][word]; ok {
		cands = append(cands, bases...)
	} else {
		for _, d := range detachments[p] {
			if strings.HasSuffix(word, d[0]) && len(word) > len(d[0]) {
				cands = append(cands, word[:len(word)-len(d[0])]+d[1])
			}
		}
	}
	var forms []string
	for _, c := range cands {
		if _, ok := w.index[p][c]; ok && !slices.Contains(forms, c) {
			forms = append(forms, c)
		}
	}
	return forms
}

// Synonyms returns the WordNet synonyms of word, sorted and without
// duplicates: the lemma names of every synset of every part of speech of the
// word or its base forms (docs/methods.md, Query perturbations; TextAttack's
// WordSwapWordNet) that differ from the word, contain no underscore and are
// a single word. Two deliberate differences from the reference: the
// comparison ignores case, and the word's own base forms are excluded too
// ("buys" → "buy" is not a synonym swap, it only drops an inflection). The
// result is lowercase as WordNet stores it, except for proper names; see
// matchCase for writing it back.
func (w *WordNet) Synonyms(word string) ([]string, error) {
	syns, err := w.synonyms(word)
	return slices.Clone(syns), err // the caller may modify its copy
}

// synonyms is Synonyms without the copy: the result is shared with the
// cache and must not be modified.
func (w *WordNet) synonyms(word string) ([]string, error) {
	if err := w.Available(); err != nil {
		return nil, err
	}
	lw := strings.ToLower(word)
	w.mu.Lock()
	syns, ok := w.cache[lw]
	w.mu.Unlock()
	if ok {
		return syns, nil
	}
	syns = w.lookup(lw)
	w.mu.Lock()
	if w.cache == nil || len(w.cache) >= synonymCacheSize {
		w.cache = make(map[string][]string)
	}
	w.cache[lw] = syns
	w.mu.Unlock()
	return syns, nil
}

// lookup computes the synonyms of the lowercase word lw.
func (w *WordNet) lookup(lw string) []string {
	exclude := map[string]bool{lw: true}
	seen := map[string]bool{}
	var out []string
	for p := range wordnetPOS {
		forms := w.baseForms(p, lw)
		for _, f := range forms {
			exclude[f] = true
		}
		for _, f := range forms {
			for _, off := range w.index[p][f] {
				for _, l := range w.lemmas(p, off) {
					ll := strings.ToLower(l)
					if seen[ll] || strings.Contains(l, "_") || !isOneWord(l) {
						continue
					}
					seen[ll] = true
					out = append(out, l)
				}
			}
		}
	}
	kept := out[:0]
	for _, l := range out {
		if !exclude[strings.ToLower(l)] {
			kept = append(kept, l)
		}
	}
	sort.Strings(kept)
	return kept
}

// isOneWord reports whether l is exactly one word under splitWords, so that
// writing it back cannot add punctuation or a second word.
func isOneWord(l string) bool {
	ws := splitWords(l)
	return len(ws) == 1 && ws[0].text == l
}

// matchCase writes syn in the capitalization of orig: all caps stays all
// caps, a capitalized word stays capitalized, anything else keeps WordNet's
// spelling (which is lowercase except for proper names). The reference
// inserts WordNet's lowercase lemma, turning "Revenue" into "gross"; keeping
// the case avoids a second, unintended perturbation.
func matchCase(orig, syn string) string {
	first, _ := utf8.DecodeRuneInString(orig)
	switch {
	case utf8.RuneCountInString(orig) > 1 && strings.ToUpper(orig) == orig && strings.ToLower(orig) != orig:
		return strings.ToUpper(syn)
	case unicode.IsUpper(first):
		r, n := utf8.DecodeRuneInString(syn)
		return string(unicode.ToUpper(r)) + syn[n:]
	}
	return syn
}
