package demo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

func TestPeriods(t *testing.T) {
	f := func(period int, label, end string) {
		t.Helper()
		if got := PeriodLabel(period); got != label {
			t.Errorf("PeriodLabel(%d) = %q, want %q", period, got, label)
		}
		if got := PeriodEnd(period).Format("2006-01-02"); got != end {
			t.Errorf("PeriodEnd(%d) = %s, want %s", period, got, end)
		}
	}
	f(0, "Q1 2024", "2024-03-31")
	f(1, "Q2 2024", "2024-06-30")
	f(3, "Q4 2024", "2024-12-31")
	f(6, "Q3 2025", "2025-09-30")
	f(-1, "Q4 2023", "2023-12-31")
}

func TestGenerateIsDeterministic(t *testing.T) {
	for _, p := range []int{0, 5, 13} {
		a, b := Generate(42, p), Generate(42, p)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("period %d: two calls differ", p)
		}
		if reflect.DeepEqual(a, Generate(43, p)) {
			t.Fatalf("period %d: seeds 42 and 43 give the same reports", p)
		}
	}
}

func TestDocuments(t *testing.T) {
	tables := 0
	for p := range 8 {
		docs := Generate(7, p)
		if len(docs) != 11 {
			t.Fatalf("period %d: %d documents, want 11", p, len(docs))
		}
		for _, d := range docs {
			sum := sha256.Sum256([]byte(d.Text))
			switch {
			case d.ContentHash != hex.EncodeToString(sum[:]):
				t.Errorf("%s: content hash mismatch", d.URI)
			case d.DocID != schemas.ID("demo", d.URI) || d.ID != schemas.ID(d.DocID, d.ContentHash):
				t.Errorf("%s: ids not derived from uri and content", d.URI)
			case d.Source != "demo" || d.MIME != "text/markdown" || d.Version != 1 || d.SchemaVersion != schemas.Version:
				t.Errorf("%s: fields %+v", d.URI, d)
			case !d.PublishedAt.Equal(PeriodEnd(p)):
				t.Errorf("%s: published %v, want %v", d.URI, d.PublishedAt, PeriodEnd(p))
			case !strings.HasPrefix(d.Text, "# "+d.Title+"\n\n") || !strings.Contains(d.Title, PeriodLabel(p)):
				t.Errorf("%s: title %q not the first line", d.URI, d.Title)
			case d.Domain != "finance" && d.Domain != "economy" && d.Domain != "policy":
				t.Errorf("%s: domain %q", d.URI, d.Domain)
			}
			if strings.Contains(d.Text, "\n|---|") {
				tables++
			}
		}
	}
	if tables == 0 {
		t.Error("no report has a table")
	}
}

// Facts change period over period: the same company's revenue differs.
func TestFactsChange(t *testing.T) {
	revenue := func(p int) string {
		for _, d := range Generate(1, p) {
			if strings.HasPrefix(d.Title, "Acme Corp") {
				return strings.SplitN(d.Text, "\n\n", 3)[1]
			}
		}
		return ""
	}
	if a, b := revenue(4), revenue(5); a == "" || a == b {
		t.Errorf("results paragraph unchanged between periods:\n%s\n%s", a, b)
	}
}

func TestRunFinite(t *testing.T) {
	s, err := New(Config{Seed: 3, Periods: 3})
	if err != nil {
		t.Fatal(err)
	}
	var calls int
	var got []schemas.DocumentVersion
	err = s.Run(context.Background(), func(_ context.Context, recs ...streams.Record) error {
		calls++
		for _, r := range recs {
			var d schemas.DocumentVersion
			if err := schemas.Decode(r.Value, &d); err != nil {
				return err
			}
			if r.Topic != streams.TopicDocuments || string(r.Key) != d.DocID || d.FetchedAt.IsZero() || d.ProducedAt.IsZero() {
				return fmt.Errorf("bad record for %s", d.URI)
			}
			got = append(got, d)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 || len(got) != 33 {
		t.Fatalf("%d emit calls, %d documents; want 3 and 33", calls, len(got))
	}
	// Run emits what Generate returns, up to the wall-clock fields.
	want := Generate(3, 2)
	for i, d := range got[22:] {
		d.FetchedAt, d.ProducedAt = time.Time{}, time.Time{}
		if !reflect.DeepEqual(d, want[i]) {
			t.Fatalf("document %d of period 2 differs from Generate", i)
		}
	}
}

func TestRunUnboundedStopsOnCancel(t *testing.T) {
	s, err := New(Config{Seed: 1, Interval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	periods := 0
	err = s.Run(ctx, func(context.Context, ...streams.Record) error {
		if periods++; periods == 5 {
			cancel()
		}
		return nil
	})
	if err != nil || periods != 5 {
		t.Fatalf("Run returned %v after %d periods, want nil after 5", err, periods)
	}
}

func TestRunReturnsEmitError(t *testing.T) {
	s, _ := New(Config{Periods: 2})
	boom := errors.New("broker down")
	if err := s.Run(context.Background(), func(context.Context, ...streams.Record) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("Run returned %v, want the emit error", err)
	}
	if _, err := New(Config{Periods: -1}); err == nil {
		t.Error("New accepted negative periods")
	}
}

func ExampleGenerate() {
	d := Generate(1, 6)[0]
	fmt.Println(d.URI)
	fmt.Println(d.Title, "|", d.Domain, "|", d.PublishedAt.Format("2006-01-02"))
	fmt.Println(strings.SplitN(d.Text, "\n\n", 3)[1])
	// Output:
	// demo://finance/acme-corp/2025-q3
	// Acme Corp quarterly results, Q3 2025 | finance | 2025-09-30
	// Acme Corp's revenue in Q3 2025 was $4.31 billion, up 13.6% from Q3 2024. Acme Corp's operating margin in Q3 2025 was 10.5%. Acme Corp employed 12,171 people at the end of Q3 2025.
}
