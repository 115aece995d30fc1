package triplet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkExtract measures the rule extractor (sentence split, tagging,
// patterns, tables) over the fact-dense reports corpus, in sentences per
// second.
func BenchmarkExtract(b *testing.B) {
	files, _ := filepath.Glob("../../testdata/corpora/reports/*.md")
	if len(files) == 0 {
		b.Skip("no reports corpus")
	}
	var texts []string
	sentences := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, string(raw))
		sentences += len(Sentences(string(raw)))
	}
	b.ResetTimer()
	for range b.N {
		for _, t := range texts {
			Extract(t)
		}
	}
	b.ReportMetric(float64(sentences*b.N)/b.Elapsed().Seconds(), "sentences/s")
}

// BenchmarkTag measures the tagger alone.
func BenchmarkTag(b *testing.B) {
	s := strings.Repeat("Northwind Robotics' revenue rose 18% to NOK 412 million in 2025. ", 1)
	for range b.N {
		tagSentence(s)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sentences/s")
}
