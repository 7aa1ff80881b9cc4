module github.com/informerd/informerd/hack/release/gomodzip

go 1.26.0

require golang.org/x/mod v0.41.0
