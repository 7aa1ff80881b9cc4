package io.informerd.client.e2e;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Map;
import java.util.TreeMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** Minimal admin client for the kube-apiserver REST API, for test setup and checks. */
final class KubeApi {
  private final String baseUrl;
  private final String token;
  private final HttpClient http;

  KubeApi(String baseUrl, Path tokenFile, Path caFile) throws IOException, GeneralSecurityException {
    this.baseUrl = baseUrl;
    this.token = new String(Files.readAllBytes(tokenFile), StandardCharsets.UTF_8).strip();
    this.http = HttpClient.newBuilder().sslContext(trusting(caFile)).build();
  }

  private static SSLContext trusting(Path caFile) throws IOException, GeneralSecurityException {
    KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
    trusted.load(null, null);
    try (InputStream in = Files.newInputStream(caFile)) {
      int i = 0;
      for (Certificate ca : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        trusted.setCertificateEntry("ca" + i++, ca);
      }
    }
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(trusted);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, factory.getTrustManagers(), null);
    return context;
  }

  JsonObject call(String method, String path, String body, String contentType)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .header("Authorization", "Bearer " + token)
            .header("Accept", "application/json");
    if (body == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request.header("Content-Type", contentType)
          .method(method, HttpRequest.BodyPublishers.ofString(body));
    }
    HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() >= 400) {
      throw new IOException(method + " " + path + ": HTTP " + response.statusCode() + ": "
          + response.body());
    }
    return JsonParser.parseString(response.body()).getAsJsonObject();
  }

  void createNamespace(String name) throws IOException, InterruptedException {
    call("POST", "/api/v1/namespaces",
        "{\"metadata\":{\"name\":\"" + name + "\"}}", "application/json");
  }

  void deleteNamespace(String name) throws IOException, InterruptedException {
    call("DELETE", "/api/v1/namespaces/" + name, null, null);
  }

  void createConfigMap(String namespace, String name, String value)
      throws IOException, InterruptedException {
    call("POST", "/api/v1/namespaces/" + namespace + "/configmaps",
        "{\"metadata\":{\"name\":\"" + name + "\"},\"data\":{\"v\":\"" + value + "\"}}",
        "application/json");
  }

  void updateConfigMap(String namespace, String name, String value)
      throws IOException, InterruptedException {
    call("PATCH", "/api/v1/namespaces/" + namespace + "/configmaps/" + name,
        "{\"data\":{\"v\":\"" + value + "\"}}", "application/merge-patch+json");
  }

  void deleteConfigMap(String namespace, String name) throws IOException, InterruptedException {
    call("DELETE", "/api/v1/namespaces/" + namespace + "/configmaps/" + name, null, null);
  }

  /** The namespace's ConfigMaps as "namespace/name" to resourceVersion. */
  Map<String, String> listConfigMaps(String namespace) throws IOException, InterruptedException {
    JsonArray items =
        call("GET", "/api/v1/namespaces/" + namespace + "/configmaps", null, null)
            .getAsJsonArray("items");
    Map<String, String> versions = new TreeMap<>();
    for (JsonElement item : items) {
      JsonObject metadata = item.getAsJsonObject().getAsJsonObject("metadata");
      versions.put(namespace + "/" + metadata.get("name").getAsString(),
          metadata.get("resourceVersion").getAsString());
    }
    return versions;
  }
}
