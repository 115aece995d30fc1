module github.com/robustream/robustream

go 1.26.8
