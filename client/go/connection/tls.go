package connection

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// tlsConfig builds the crypto/tls configuration for opts.
func tlsConfig(opts *TLSOptions) (*tls.Config, error) {
	config := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: opts.ServerName}
	if opts.CAFile != "" {
		pem, err := os.ReadFile(opts.CAFile)
		if err != nil {
			return nil, fmt.Errorf("connection: TLS.CAFile: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("connection: TLS.CAFile %s: no PEM certificate found", opts.CAFile)
		}
		config.RootCAs = pool
	}
	if (opts.CertFile == "") != (opts.KeyFile == "") {
		return nil, errors.New("connection: TLS.CertFile and TLS.KeyFile must be set together")
	}
	if opts.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(opts.CertFile, opts.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("connection: TLS.CertFile/KeyFile: %w", err)
		}
		config.Certificates = []tls.Certificate{cert}
	}
	return config, nil
}
