package chunk

import (
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding is the BPE vocabulary tokens are counted with. cl100k_base is the
// vocabulary of the GPT-3.5/4 family, close enough to the models RARE sized
// its ~600-token chunks for (RARE §4.1).
const Encoding = "cl100k_base"

var (
	encOnce sync.Once
	enc     *tiktoken.Tiktoken
	encErr  error
)

// encoder loads the embedded vocabulary once. The offline loader reads the
// BPE ranks compiled into the binary: the default loader would download them,
// which an air-gapped deployment cannot do.
func encoder() (*tiktoken.Tiktoken, error) {
	encOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
		enc, encErr = tiktoken.GetEncoding(Encoding)
		if encErr != nil {
			encErr = fmt.Errorf("cannot load BPE vocabulary %s: %w", Encoding, encErr)
		}
	})
	return enc, encErr
}

// CountTokens returns the number of cl100k_base tokens of text. Special-token
// markers such as "<|endoftext|>" are counted as ordinary text, so hostile
// documents cannot smuggle control tokens in.
func CountTokens(text string) int {
	if text == "" {
		return 0
	}
	e, err := encoder()
	if err != nil {
		// The vocabulary is compiled into the binary: failing to parse it is
		// a broken build, not bad input.
		panic(err)
	}
	return len(e.EncodeOrdinary(text))
}
