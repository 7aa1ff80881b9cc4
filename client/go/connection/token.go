package connection

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// bearerToken implements credentials.PerRPCCredentials with either a fixed
// token or a file read on every call. Safe for concurrent use: it has no
// mutable state.
type bearerToken struct {
	token      string
	file       string
	requireTLS bool
}

func (b bearerToken) GetRequestMetadata(ctx context.Context, uri ...string) (map[string]string, error) {
	token := b.token
	if b.file != "" {
		content, err := os.ReadFile(b.file)
		if err != nil {
			return nil, fmt.Errorf("connection: TokenFile: %w", err)
		}
		token = strings.TrimSpace(string(content))
		if token == "" {
			return nil, fmt.Errorf("connection: TokenFile %s is empty", b.file)
		}
	}
	return map[string]string{"authorization": "Bearer " + token}, nil
}

func (b bearerToken) RequireTransportSecurity() bool { return b.requireTLS }
