// Package connection dials informerd: one or several addresses, TLS, bearer
// tokens and a default deadline for unary calls.
package connection

import "time"

// Options says how to reach informerd.
type Options struct {
	// Addresses are host:port pairs. Several are balanced round robin, each
	// call going to the next healthy one. A single address may instead be a
	// gRPC target such as "dns:///informerd.example:50051", which is also
	// balanced round robin over the addresses it resolves to.
	// Required.
	Addresses []string

	// TLS secures the connection; nil means plaintext.
	TLS *TLSOptions

	// Token is sent as "authorization: Bearer <token>" on every call.
	Token string
	// TokenFile is read on every call and sent as Token is, so a rotated
	// token (e.g. a projected service account token) is picked up. At most
	// one of Token and TokenFile may be set.
	TokenFile string
	// AllowTokenWithoutTLS sends the token over a plaintext connection.
	// Only for servers on loopback or behind a trusted proxy: the token
	// would otherwise be readable on the network.
	AllowTokenWithoutTLS bool

	// CallTimeout is the deadline for unary calls (List, Get,
	// ListResources) whose context has none. Zero: none. Watch streams are
	// long-lived and never get one.
	CallTimeout time.Duration
}

// TLSOptions configure the client side of TLS.
type TLSOptions struct {
	// CAFile holds PEM certificates to verify the server with; empty means
	// the system's roots.
	CAFile string
	// CertFile and KeyFile are a PEM client certificate and its key, for
	// servers that authenticate clients by certificate. Both or neither.
	CertFile string
	KeyFile  string
	// ServerName overrides the name the server certificate is verified
	// against; empty means the host of each address.
	ServerName string
}
