package question_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robustream/robustream/processors/chunk"
	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/processors/triplet"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources"
	"github.com/robustream/robustream/sources/dir"
)

// sampleKnowledge reads files as the engine's folder source reads them
// (sources/dir: an HTML page's main content and title, a Markdown file's
// first heading, a manual page's NAME line), chunks each, extracts
// triplets with the page's title as the triplets stage does, and builds the
// questions of all of them in one graph. It returns the graph and the
// number of words read.
func sampleKnowledge(t *testing.T, files []string) (*question.Knowledge, int) {
	t.Helper()
	if len(files) == 0 {
		t.Fatal("no files in the sample")
	}
	k := question.NewKnowledge(question.PatternLimits{})
	words := 0
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(p)
		if !dir.Supported(name) {
			name += ".txt" // "ferm-NEWS": a NEWS file renamed for the sample
		}
		title, text := "", string(src)
		if c, err := dir.Convert(context.Background(), name, src); err == nil {
			title, text = c.Title, c.Text
		} else if errors.Is(err, dir.ErrEmpty) {
			continue // a page of links only ("Book Contents"): the engine reads nothing of it
		} else if !errors.Is(err, sources.ErrInvalidUTF8) {
			t.Fatalf("%s: %v", p, err)
		} // a Latin-1 NEWS the engine would refuse is read as it stands, as when the sample was labelled
		words += len(strings.Fields(text))
		id := filepath.Base(p)
		pieces := chunk.Split(text, 0)
		for _, pc := range pieces {
			c := schemas.ID(id, pc.Text)
			for _, x := range triplet.ExtractTitled(pc.Text, title) {
				if triplet.Verify(pc.Text, x.Sentence.Text, x.Tail) != nil {
					continue // the triplets stage drops it, as it does here
				}
				apply(k, &schemas.Triplet{TripletID: schemas.ID(x.Head, x.Relation, x.Tail, c), Head: x.Head, Relation: x.Relation,
					Tail: x.Tail, Kind: x.Kind, ChunkID: c, DocID: id, DocVersion: 1, SourceSentence: x.Sentence.Text, ChunkText: pc.Text})
			}
			apply(k, &schemas.Triplet{End: true, ChunkID: c, DocID: id, DocVersion: 1, Chunks: uint32(len(pieces))})
		}
	}
	return k, words
}

// writeEvidence writes each unlabelled question with its document and
// ground-truth chunks to the file ROBUSTREAM_HELDOUT_EVIDENCE names, for
// the person labelling them.
func writeEvidence(t *testing.T, diffs []labelDiff) {
	p := os.Getenv("ROBUSTREAM_HELDOUT_EVIDENCE")
	if p == "" {
		return
	}
	var evidence []string
	for _, d := range diffs {
		for _, q := range d.unlabelled {
			evidence = append(evidence, fmt.Sprintf("## %s/%s (%s, %s)\nQ: %s\nA: %s\nEvidence:\n%s\n",
				d.part, q.QuestionID, q.DocID, q.Pattern, q.Question, q.Answer, strings.Join(q.GTChunks, "\n---\n")))
		}
	}
	if len(evidence) > 0 {
		if err := os.WriteFile(p, []byte(strings.Join(evidence, "\n")), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// reportTargets prints how a labelled sample stands against the targets
// of issue 18 (at least 60 questions, 90% usable, 3 usable per 1,000 words
// of prose); with ROBUSTREAM_HELDOUT_TARGETS=1 a gap fails the test.
func reportTargets(t *testing.T, total, usable int, per1k float64) {
	var gaps []string
	if total < 60 {
		gaps = append(gaps, fmt.Sprintf("%d labelled questions: the sample needs at least 60", total))
	}
	if usable*10 < total*9 {
		gaps = append(gaps, fmt.Sprintf("%d of %d questions usable: below 90%%", usable, total))
	}
	if per1k < 3 {
		gaps = append(gaps, fmt.Sprintf("%.2f usable questions per 1,000 words of prose: below 3", per1k))
	}
	if len(gaps) == 0 {
		return
	}
	if os.Getenv("ROBUSTREAM_HELDOUT_TARGETS") == "1" {
		t.Errorf("targets not met:\n%s", strings.Join(gaps, "\n"))
	} else {
		t.Logf("TARGETS NOT MET (issue open; ROBUSTREAM_HELDOUT_TARGETS=1 makes this fail):\n%s", strings.Join(gaps, "\n"))
	}
}

// The fresh Debian sample (testdata/debian-fresh/SOURCES.md): the Debian
// FAQ and two chapters of the Debian Administrator's Handbook as HTML, and
// the release notes of five packages, drawn after the rules were frozen and
// labelled by hand.
const freshDir = "testdata/debian-fresh"

// TestDebianFreshSample regenerates the fresh sample's questions, fails
// when they are not exactly the labelled set, holds them to the floor
// measured when they were labelled, and prints the gap to the targets.
func TestDebianFreshSample(t *testing.T) {
	// The floor is the figure measured when the sample was labelled (rules
	// frozen at 1aee5bc): 48 usable of 67, 0.43 per 1,000 words of prose.
	// After 2026-11-29's rules (not held-out): 55 questions, 51 usable,
	// 0.46 per 1,000 words: the floor.
	checkSample(t, "fresh Debian sample", freshDir, 51, 0.90, 0.45)
}

// The second fresh Debian sample (testdata/debian-fresh2/SOURCES.md): the
// opening chapters of four Debian manuals as HTML and the release notes of
// thirteen packages, drawn by a helper who ran nothing of the project on
// them, measured once with the rules frozen at d349d91 and labelled by hand.
const fresh2Dir = "testdata/debian-fresh2"

// TestDebianFresh2Sample is TestDebianFreshSample for the second sample.
func TestDebianFresh2Sample(t *testing.T) {
	// The floor is the figure measured when the sample was labelled (rules
	// frozen at d349d91): 4 usable of 8, 0.16 per 1,000 words of prose.
	// After 2026-11-29's rules (not held-out; NEWS items added 16 release
	// questions): 22 questions, all usable, 0.24 per 1,000 words: the floor.
	checkSample(t, "second fresh Debian sample", fresh2Dir, 22, 0.95, 0.23)
}

// The third fresh Debian sample (testdata/debian-fresh3/SOURCES.md): the
// opening chapters or whole manuals of four documentation packages (mutt,
// nano, docutils, curl) and the release notes of five packages, drawn by a
// helper who ran nothing of the project on them before they were fixed,
// measured once with the rules frozen at 5b3e800 and labelled by hand.
const fresh3Dir = "testdata/debian-fresh3"

// TestDebianFresh3Sample is TestDebianFreshSample for the third sample.
func TestDebianFresh3Sample(t *testing.T) {
	// Measured when the sample was labelled (rules frozen at 5b3e800, and
	// unchanged for it through fb5d81a): 19 usable of 28, 0.35 per 1,000
	// words of prose, the held-out figure. Fixing the classes its labels
	// named (an option's default given to the option above, an apposition
	// to a participle's agent, "then offers", a plural word's property
	// read as a definition, a "NAME -- what it is" title line, a past event
	// of a kind of thing: "CVE IDs were assigned by …") brought it to 21 of
	// 23, 0.41 per 1,000 words: the floor. (Reference entries, asked only of
	// a page that names its program, add none: nano's manual is titled "The
	// GNU nano text editor", and "Which option makes the Home key smarter?"
	// names no program.)
	// After 2026-11-29's rules (not held-out; a GNU manual's title names
	// its program, so nano's options are asked): 43 questions, all usable,
	// 0.98 per 1,000 words: the floor.
	checkSample(t, "third fresh Debian sample", fresh3Dir, 43, 0.95, 0.95)
}

// The fourth fresh Debian sample (testdata/debian-fresh4/SOURCES.md): the
// chrony FAQ, six chapters of Privoxy's user manual, the manual pages of
// Knot DNS's utilities and six of NTPsec's, and four packages' NEWS, drawn
// by a helper who ran nothing of the project on them, measured once with
// the rules frozen at 9be4fe7 and labelled by hand.
const fresh4Dir = "testdata/debian-fresh4"

// TestDebianFresh4Sample is TestDebianFreshSample for the fourth sample.
func TestDebianFresh4Sample(t *testing.T) {
	// Measured when the sample was labelled (rules frozen at 9be4fe7): 5
	// usable of 38, 0.17 per 1,000 words of prose, the held-out figure.
	// Most questions were reference entries of manual pages that named no
	// program ("Which option enables debug output?", which five tools of
	// the sample answer).
	// Fixing the classes its labels named (no longer a held-out figure): an
	// entry is asked only of a page whose title names its program ("kdig –
	// Advanced DNS lookup utility" → "Which option of kdig …?"), and so is
	// a short option's default ("What does knsupdate -t default to?"); an
	// option named by one word the question inflects ("drops" for --drop)
	// is not asked; a table under a bare manual-page heading ("FILES"), a
	// column header used twice, a comparative genus ("a newer
	// implementation") and "-?" described like "-h" are not asked either:
	// 34 questions, all usable, 1.17 per 1,000 words; a default stated as
	// "The default port is 53.", an aside left out of a description, and
	// "the maxclockerror directive" as a subject brought 39, all usable,
	// 1.34 per 1,000 words: the floor.
	// After 2026-11-29's rules (not held-out; an option's value named by a
	// noun phrase is asked): 49 questions, all usable, 1.69 per 1,000
	// words: the floor.
	checkSample(t, "fourth fresh Debian sample", fresh4Dir, 49, 0.95, 1.65)
}

// The fifth fresh Debian sample (testdata/debian-fresh5/SOURCES.md): the
// manual pages of ffplay, ffprobe, stunnel and four Sphinx tools, the
// opening chapters of the Exim specification and the Wireshark user's
// guide, Borg's installation and quickstart pages, dnsmasq's FAQ, and four
// packages' NEWS, drawn by a helper who ran nothing of the project on
// them, measured once with the rules frozen at ce59db5 and labelled by
// hand.
const fresh5Dir = "testdata/debian-fresh5"

// TestDebianFresh5Sample is TestDebianFreshSample for the fifth sample.
func TestDebianFresh5Sample(t *testing.T) {
	// Measured when the sample was labelled (rules frozen at ce59db5): 13
	// usable of 52, 0.31 per 1,000 words of prose, the held-out figure.
	// The bad ones: a table of install commands under a heading that names
	// no program (15), options whose names the question spells out
	// (12: "enables sphinx.ext.todo extension" → --ext-todo), builders
	// listed under "Options" asked as options (6), and six vague or wrong
	// prose questions. Fixing those classes (no longer a held-out figure: a
	// column of commands for a task the rows do not say, every word of an
	// option's name in the question, bare words under "Options", an
	// apposition after an opening phrase, "the XML output", "an
	// interactive tool") left 15 questions, 13 usable (87%), 0.31 per
	// 1,000 words: the floor. ("Can be found in …" and a licence given as
	// "under the terms of …" then added two, both usable: 17, 15.) Still bad: "What does SERVICE_NAME
	// specify?" (a placeholder of an option's grammar) and "Who
	// contributed Server support?" (support of what?).
	// After 2026-11-29's rules (not held-out): 26 questions, 24 usable
	// (92%), 0.39 per 1,000 words: the floor.
	checkSample(t, "fifth fresh Debian sample", fresh5Dir, 24, 0.90, 0.38)
}

// The sixth fresh Debian sample (testdata/debian-fresh6/SOURCES.md): the
// manual pages of Kea, fish, tig and two of Tor's tools, Ninja's manual,
// WeeChat's quick start and FAQ, rsnapshot's HOWTO, two chapters of
// Icinga 2's documentation, and five packages' NEWS, drawn by a helper who
// ran nothing of the project on them, measured once with the rules frozen
// at ef43e16 and labelled by hand.
const fresh6Dir = "testdata/debian-fresh6"

// TestDebianFresh6Sample is TestDebianFreshSample for the sixth sample.
func TestDebianFresh6Sample(t *testing.T) {
	// Measured when the sample was labelled (rules frozen at ef43e16): 60
	// usable of 99 (61%), 1.84 per 1,000 words of prose, the held-out
	// figure. 30 of the 39 bad ones were the same question asked again from
	// the same boilerplate paragraph on another Kea manual page ("Where is
	// the Kea project website available?" nine times). Asking a fact stated
	// in several chunks once, and taking "a shell script" for a genus only
	// (no longer a held-out figure), left 62 questions, 60 usable (97%),
	// 1.84 per 1,000 words: the floor.
	// After 2026-11-29's rules (not held-out): 65 questions, 63 usable,
	// 1.84 per 1,000 words: the floor.
	checkSample(t, "sixth fresh Debian sample", fresh6Dir, 63, 0.95, 1.80)
}

// The seventh fresh Debian sample (testdata/debian-fresh7/SOURCES.md):
// the manual pages of couriertcpd, Alpine, three Open vSwitch tools and
// Flex's scanner options, Postfix's basic configuration and SOHO guides,
// Xapian's install and overview pages, the opening chapters of restic's
// manual, three Buildah tutorials, NUT's README, and five packages' NEWS,
// drawn by a helper who ran nothing of the project on them, measured once
// with the rules frozen at 8f2c106 and labelled by hand.
const fresh7Dir = "testdata/debian-fresh7"

// TestDebianFresh7Sample is TestDebianFreshSample for the seventh sample.
func TestDebianFresh7Sample(t *testing.T) {
	// Measured when the sample was labelled (rules frozen at 8f2c106): 5
	// usable of 16 (31%), 0.14 per 1,000 words of prose, the held-out
	// figure. Few of its manual pages have a title the rules read as a
	// program's ("couriertcpd", "Options for Scanner Speed and Size
	// (Lexical Analysis With Flex …)"), so almost no option is asked; the
	// bad ones are prose questions that name no program, answers cut
	// short, and proftpd's "Issue 1533 - mod_tls …" lines read as
	// subjects. The last are no longer read (a subject with " - " in it is
	// a change log's label): 13 questions, 5 usable (38%), the floor; the
	// rest were not fixed in the session that measured it.
	// On 2026-11-29 (not held-out): a manual page's NAME line as its
	// title, noun-phrase option values, NEWS items, and the bad classes
	// its labels named ("What does the -nn option enable?", an answer cut
	// at "etc", "What is `test.panel.start`?", a genus cut before its
	// participle) brought it to 30 questions, 27 usable (90%), 0.31 per
	// 1,000 words: the floor.
	checkSample(t, "seventh fresh Debian sample", fresh7Dir, 27, 0.90, 0.30)
}

// checkSample regenerates the questions of a labelled sample's two parts
// (dir/prose and dir/relnotes, each one graph, read by sampleKnowledge),
// fails when they are not exactly the labels of dir/labels.tsv, prints the
// usable share (all parts) and the usable questions per 1,000 words of
// prose, fails below the floor given, and reports the gap to the targets.
func checkSample(t *testing.T, name, dir string, floorUsable int, floorShare, floorPer1k float64) {
	t.Helper()
	labelsPath := dir + "/labels.tsv"
	labels := readSampleLabels(t, labelsPath)
	var diffs []labelDiff
	usable, total := 0, 0
	words := map[string]int{}
	perPart := map[string][2]int{} // usable, questions
	for _, part := range []string{"prose", "relnotes"} {
		files, err := filepath.Glob(filepath.Join(dir, part, "*"))
		if err != nil {
			t.Fatal(err)
		}
		k, n := sampleKnowledge(t, files)
		words[part] = n
		d := compareLabels(t, part, k.Active(), labels)
		diffs = append(diffs, d)
		usable, total = usable+d.usable, total+d.total
		perPart[part] = [2]int{d.usable, d.total}
	}
	writeEvidence(t, diffs)
	failOnDiff(t, labelsPath, diffs...)
	prose := perPart["prose"]
	per1k := 1000 * float64(prose[0]) / float64(words["prose"])
	t.Logf("%s: %d questions, %d usable (%.0f%%); prose: %d words, %d questions, %d usable, %.2f usable per 1,000 words; relnotes: %d words, %d questions, %d usable",
		name, total, usable, 100*float64(usable)/float64(max(total, 1)), words["prose"], prose[1], prose[0], per1k,
		words["relnotes"], perPart["relnotes"][1], perPart["relnotes"][0])
	if usable < floorUsable || float64(usable) < floorShare*float64(total) || per1k < floorPer1k {
		t.Errorf("below the measured floor: %d usable of %d (floor %d, %.0f%%), %.2f per 1,000 words (floor %.2f)",
			usable, total, floorUsable, 100*floorShare, per1k, floorPer1k)
	}
	reportTargets(t, total, usable, per1k)
}

// The eighth fresh Debian sample (testdata/debian-fresh8/SOURCES.md): the
// manual pages of notmuch, ipsvd's four servers, OpenSP's nsgmls, spam
// and sgmlnorm, and m4's invocation sections; the Cyrus IMAP overview,
// mopidy's installation and running pages, the opening nodes of the
// GNU Mailutils manual, five etcd documents and lsof's quick start; and
// five packages' NEWS, drawn by a helper who ran nothing of the project on
// them, measured once with the rules frozen at caf3078 and labelled by
// hand.
const fresh8Dir = "testdata/debian-fresh8"

// TestDebianFresh8Sample is TestDebianFreshSample for the eighth sample.
func TestDebianFresh8Sample(t *testing.T) {
	// Measured when the sample was labelled (rules frozen at caf3078): 12
	// usable of 19 (63%), 0.32 per 1,000 words of prose, the held-out
	// figure. Fixing the classes its labels named (options of no
	// program, an answer cut at a participle, a verb that did not agree,
	// "now" facts of a release, a name the question spells) and reading
	// GNU and capitalised page titles brought it to 29 questions, 28
	// usable (97%), 0.65 per 1,000 words (no longer a held-out figure):
	// the floor.
	checkSample(t, "eighth fresh Debian sample", fresh8Dir, 28, 0.95, 0.63)
}

// The ninth fresh Debian sample (testdata/debian-fresh9/SOURCES.md): the
// manual pages of five translate-toolkit converters and ten bup commands,
// pspp's invocation sections; dar's presentation and features pages,
// alot's install, usage and configuration pages, the opening nodes of the
// CSSC manual, five podman documents and mdadm's FAQ; and five packages'
// NEWS, drawn by a helper who ran nothing of the project on them,
// measured once with the rules frozen at 082e493 and labelled by hand.
const fresh9Dir = "testdata/debian-fresh9"

// TestDebianFresh9Sample is TestDebianFreshSample for the ninth sample.
func TestDebianFresh9Sample(t *testing.T) {
	// Measured when the sample was labelled (rules frozen at 082e493): 8
	// usable of 16 (50%), 0.14 per 1,000 words of prose, the held-out
	// figure. Fixing the classes its labels named (layout labels "A",
	// "B" as table rows, an instruction read as a subject, "What does
	// RAID0 have?", "What does Alot read?") and reading generated help
	// lines and texinfo manuals named in parentheses ("Main Options
	// (PSPP)") brought it to 14 questions, 13 usable (93%), 0.29 per
	// 1,000 words (no longer a held-out figure): the floor.
	checkSample(t, "ninth fresh Debian sample", fresh9Dir, 13, 0.90, 0.28)
}
