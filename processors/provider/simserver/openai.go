package simserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// The request shapes of the OpenAI API, the fields the server reads. Others
// are accepted and ignored, as clients send many.
type (
	chatRequest struct {
		Model               string        `json:"model"`
		Messages            []chatMessage `json:"messages"`
		MaxTokens           *int          `json:"max_tokens"`
		MaxCompletionTokens *int          `json:"max_completion_tokens"` // newer name, preferred
		Temperature         *float64      `json:"temperature"`
		Stream              bool          `json:"stream"`
	}
	chatMessage struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"` // a string, or a list of parts
	}
	completionRequest struct {
		Model       string          `json:"model"`
		Prompt      json.RawMessage `json:"prompt"` // a string or a list of strings
		MaxTokens   *int            `json:"max_tokens"`
		Temperature *float64        `json:"temperature"`
		Stream      bool            `json:"stream"`
	}
	embeddingRequest struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"` // a string or a list of strings
	}
)

// The response shapes.
type (
	usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
	chatResponse struct {
		ID      string       `json:"id"`
		Object  string       `json:"object"`
		Created int64        `json:"created"`
		Model   string       `json:"model"`
		Choices []chatChoice `json:"choices"`
		Usage   usage        `json:"usage"`
	}
	chatChoice struct {
		Index        int              `json:"index"`
		Message      assistantMessage `json:"message"`
		FinishReason string           `json:"finish_reason"`
	}
	assistantMessage struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	completionResponse struct {
		ID      string             `json:"id"`
		Object  string             `json:"object"`
		Created int64              `json:"created"`
		Model   string             `json:"model"`
		Choices []completionChoice `json:"choices"`
		Usage   usage              `json:"usage"`
	}
	completionChoice struct {
		Index        int     `json:"index"`
		Text         string  `json:"text"`
		Logprobs     *string `json:"logprobs"` // always null
		FinishReason string  `json:"finish_reason"`
	}
	embeddingResponse struct {
		Object string          `json:"object"`
		Data   []embeddingData `json:"data"`
		Model  string          `json:"model"`
		Usage  embeddingUsage  `json:"usage"`
	}
	embeddingData struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	embeddingUsage struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	}
	modelList struct {
		Object string      `json:"object"`
		Data   []modelCard `json:"data"`
	}
	modelCard struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	errorBody struct {
		Error errorDetail `json:"error"`
	}
	errorDetail struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"` // always null
		Code    string  `json:"code"`
	}
)

// badRequest is an error the client caused, answered 400 unless status says
// otherwise.
type badRequest struct {
	status    int
	typ, code string
	msg       string
}

func (e *badRequest) Error() string { return e.msg }

func invalid(format string, args ...any) *badRequest {
	return &badRequest{status: http.StatusBadRequest, typ: "invalid_request_error", code: "invalid_request", msg: fmt.Sprintf(format, args...)}
}

// generation is a parsed chat or completions request.
type generation struct {
	model       string
	prompts     []string
	maxTokens   int // DefaultMaxTokens when the request sets none
	temperature *float64
}

// newGeneration checks the settings common to chat and completions.
func newGeneration(model string, prompts []string, maxTokens *int, temperature *float64, stream bool) (generation, error) {
	g := generation{model: model, prompts: prompts, maxTokens: DefaultMaxTokens, temperature: temperature}
	if stream {
		return g, invalid("stream: streaming is not simulated")
	}
	if maxTokens != nil {
		if g.maxTokens = *maxTokens; g.maxTokens < 1 {
			return g, invalid("max_tokens: %d, must be at least 1", g.maxTokens)
		}
	}
	return g, nil
}

func parseChat(body []byte) (generation, error) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return generation{}, invalid("cannot parse the request body: %v", err)
	}
	if len(req.Messages) == 0 {
		return generation{}, invalid("messages: at least one message is required")
	}
	// The prompt is the messages' contents, one per line: the model sees
	// every message, and the engine sends a single user message.
	parts := make([]string, 0, len(req.Messages))
	for i, m := range req.Messages {
		c, err := messageContent(m.Content)
		if err != nil {
			return generation{}, invalid("messages[%d].content: %v", i, err)
		}
		parts = append(parts, c)
	}
	maxTokens := req.MaxTokens
	if req.MaxCompletionTokens != nil {
		maxTokens = req.MaxCompletionTokens
	}
	return newGeneration(req.Model, []string{strings.Join(parts, "\n")}, maxTokens, req.Temperature, req.Stream)
}

// messageContent reads a message's content: a string, a list of parts
// whose text parts are joined, or null.
func messageContent(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("neither a string nor a list of parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

func parseCompletion(body []byte) (generation, error) {
	var req completionRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return generation{}, invalid("cannot parse the request body: %v", err)
	}
	prompts, err := stringOrList("prompt", req.Prompt)
	if err != nil {
		return generation{}, err
	}
	return newGeneration(req.Model, prompts, req.MaxTokens, req.Temperature, req.Stream)
}

// stringOrList reads a field that is a string or a non-empty list of
// strings. Lists of token ids, which the API also allows, are refused.
func stringOrList(field string, raw json.RawMessage) ([]string, error) {
	var one string
	if string(raw) != "null" && json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
		return nil, invalid("%s: want a string or a non-empty list of strings", field)
	}
	return list, nil
}

// writeError writes an OpenAI error body.
func writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	writeJSON(w, status, errorBody{Error: errorDetail{Message: msg, Type: typ, Code: code}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("simserver: cannot encode a response: %v", err)) // the shapes above always encode
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body) // a failed write means the client is gone; nothing to do
}
