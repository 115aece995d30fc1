package simserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"net/http"

	"github.com/robustream/robustream/processors/provider/simserver"
)

// A test starts a server, points the client under test at its BaseURL and
// reads Stats afterwards.
func Example() {
	s, err := simserver.Start(simserver.Config{MaxNumSeqs: 4})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	prompt := "Answer the question using only the numbered contexts below.\n" +
		"\nContext [1]:\nAcme Corp's revenue in Q3 2025 was $4.2 billion.\n" +
		"\nQuestion: What was Acme Corp's revenue in Q3 2025?\nAnswer:"
	body, _ := json.Marshal(map[string]any{
		"model":       "sim",
		"messages":    []map[string]string{{"role": "user", "content": prompt}},
		"temperature": 0,
		"max_tokens":  64,
	})
	resp, err := http.Post(s.BaseURL()+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, out.Choices[0].Message.Content)
	fmt.Println("prompt tokens:", out.Usage.PromptTokens)

	st := s.Stats()
	fmt.Printf("requests %d, completed %d, prompts %d, duplicates %d, running %d\n",
		st.Requests, st.Completed, st.Prompts, st.Duplicates, st.Running)
	fmt.Println("capacity known:", st.Capacity > 0)
	// Output:
	// 200 $4.2 billion
	// prompt tokens: 45
	// requests 1, completed 1, prompts 1, duplicates 0, running 0
	// capacity known: true
}
