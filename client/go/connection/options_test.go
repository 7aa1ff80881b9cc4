package connection

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBearerTokenRereadsFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	creds := bearerToken{file: file}
	for _, token := range []string{"first", "second"} {
		if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		md, err := creds.GetRequestMetadata(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := md["authorization"]; got != "Bearer "+token {
			t.Errorf("authorization = %q, want %q", got, "Bearer "+token)
		}
	}
}

func TestBearerTokenFileErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for file, wantErr := range map[string]string{
		empty:                        "is empty",
		filepath.Join(dir, "absent"): "no such file",
	} {
		_, err := bearerToken{file: file}.GetRequestMetadata(context.Background())
		if err == nil || !strings.Contains(err.Error(), wantErr) || !strings.Contains(err.Error(), "TokenFile") {
			t.Errorf("token file %s: error = %v, want one naming TokenFile and containing %q", file, err, wantErr)
		}
	}
}

func TestStaticBearerToken(t *testing.T) {
	creds := bearerToken{token: "abc", requireTLS: true}
	md, err := creds.GetRequestMetadata(context.Background())
	if err != nil || md["authorization"] != "Bearer abc" {
		t.Errorf("metadata = %v, %v", md, err)
	}
	if !creds.RequireTransportSecurity() {
		t.Error("RequireTransportSecurity() = false with requireTLS")
	}
}

func TestTLSConfigErrorsNameTheField(t *testing.T) {
	p := newTestPKI(t)
	cases := []struct {
		opts    TLSOptions
		wantErr string
	}{
		{TLSOptions{CAFile: filepath.Join(t.TempDir(), "absent")}, "TLS.CAFile"},
		{TLSOptions{CAFile: p.serverKeyFile}, "no PEM certificate"},
		{TLSOptions{CertFile: p.clientCertFile}, "TLS.CertFile and TLS.KeyFile must be set together"},
		{TLSOptions{CertFile: p.clientCertFile, KeyFile: p.serverKeyFile}, "TLS.CertFile/KeyFile"},
	}
	for _, c := range cases {
		_, err := tlsConfig(&c.opts)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("tlsConfig(%+v) error = %v, want one containing %q", c.opts, err, c.wantErr)
		}
	}
	config, err := tlsConfig(&TLSOptions{CAFile: p.caFile, CertFile: p.clientCertFile, KeyFile: p.clientKeyFile, ServerName: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if config.RootCAs == nil || len(config.Certificates) != 1 || config.ServerName != "x" {
		t.Errorf("tlsConfig = %+v", config)
	}
}

func TestDialSettingsRejectsBadOptions(t *testing.T) {
	cases := []struct {
		opts    Options
		wantErr string
	}{
		{Options{}, "Addresses is empty"},
		{Options{Addresses: []string{"a:1", " "}}, "Addresses[1] is empty"},
		{Options{Addresses: []string{"a:1", "b"}}, "Addresses[1]"},
		{Options{Addresses: []string{"a:1"}, Token: "t", TokenFile: "f", AllowTokenWithoutTLS: true}, "at most one of Token and TokenFile"},
		{Options{Addresses: []string{"a:1"}, Token: "t"}, "a token needs TLS"},
		// A token file too, and loopback is no exception.
		{Options{Addresses: []string{"127.0.0.1:1"}, TokenFile: "f"}, "a token needs TLS (or AllowTokenWithoutTLS)"},
		{Options{Addresses: []string{"a:1"}, CallTimeout: -1}, "CallTimeout"},
	}
	for _, c := range cases {
		_, _, err := dialSettings(c.opts)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("dialSettings(%+v) error = %v, want one containing %q", c.opts, err, c.wantErr)
		}
	}
}
