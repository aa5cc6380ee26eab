package main

import "embed"

// docsFS is the documentation served under each base address's /docs/.
//
//go:embed README.md docs/*.md
var docsFS embed.FS
