package integration

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// apiserver makes the few kube-apiserver REST calls the tests need, as the
// admin identity.
type apiserver struct {
	url    string
	token  string
	client *http.Client
}

func newAPIServer(env testEnv) (*apiserver, error) {
	token, err := os.ReadFile(env.adminTokenFile)
	if err != nil {
		return nil, err
	}
	caPEM, err := os.ReadFile(env.caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("%s: no PEM certificate", env.caFile)
	}
	return &apiserver{
		url:   env.apiserverURL,
		token: strings.TrimSpace(string(token)),
		client: &http.Client{
			Timeout:   30 * time.Second,
			Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		},
	}, nil
}

// call sends body (marshalled to JSON unless nil) and decodes the answer
// into out (unless nil). Statuses >= 400 are errors.
func (a *apiserver) call(method, path, contentType string, body, out interface{}) error {
	var reader io.Reader
	if body != nil {
		encoded, err := json.Marshal(body)
		if err != nil {
			return err
		}
		reader = bytes.NewReader(encoded)
	}
	req, err := http.NewRequest(method, a.url+path, reader)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 400 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, answer)
	}
	if out != nil {
		return json.Unmarshal(answer, out)
	}
	return nil
}

type metadata struct {
	Name            string            `json:"name"`
	Namespace       string            `json:"namespace,omitempty"`
	ResourceVersion string            `json:"resourceVersion,omitempty"`
	Labels          map[string]string `json:"labels,omitempty"`
}

type configMap struct {
	Metadata metadata          `json:"metadata"`
	Data     map[string]string `json:"data,omitempty"`
}

func (a *apiserver) createNamespace(name string) error {
	return a.call("POST", "/api/v1/namespaces", "application/json",
		map[string]interface{}{"metadata": metadata{Name: name}}, nil)
}

func (a *apiserver) createConfigMap(namespace string, cm configMap) error {
	return a.call("POST", "/api/v1/namespaces/"+namespace+"/configmaps", "application/json", cm, nil)
}

func (a *apiserver) patchConfigMap(namespace, name string, data map[string]string) error {
	return a.call("PATCH", "/api/v1/namespaces/"+namespace+"/configmaps/"+name,
		"application/merge-patch+json", map[string]interface{}{"data": data}, nil)
}

func (a *apiserver) deleteConfigMap(namespace, name string) error {
	return a.call("DELETE", "/api/v1/namespaces/"+namespace+"/configmaps/"+name, "", nil, nil)
}

// listConfigMaps returns name -> resourceVersion for the namespace.
func (a *apiserver) listConfigMaps(namespace string) (map[string]string, error) {
	var list struct {
		Items []configMap `json:"items"`
	}
	if err := a.call("GET", "/api/v1/namespaces/"+namespace+"/configmaps", "", nil, &list); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(list.Items))
	for _, item := range list.Items {
		out[item.Metadata.Name] = item.Metadata.ResourceVersion
	}
	return out, nil
}
