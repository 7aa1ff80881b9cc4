package io.informerd.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Decodes cached objects' JSON into the caller's own types with the caller's
 * JSON library, e.g.
 *
 * <pre>{@code
 * Gson gson = new Gson();
 * Decoder<ConfigMap> configMaps =
 *     Decoder.of(json -> gson.fromJson(new String(json, UTF_8), ConfigMap.class));
 * }</pre>
 *
 * <p>Thread-safe if the parse function is.
 */
public final class Decoder<T> {
  private final Function<byte[], T> parse;

  private Decoder(Function<byte[], T> parse) {
    this.parse = parse;
  }

  /** {@code parse} receives the object's JSON bytes (UTF-8). */
  public static <T> Decoder<T> of(Function<byte[], T> parse) {
    return new Decoder<>(parse);
  }

  /**
   * @throws DecodeException naming the object if {@code parse} throws or
   *     returns null
   */
  public T decode(KubeObject object) {
    T decoded;
    try {
      decoded = parse.apply(object.json().toByteArray());
    } catch (RuntimeException e) {
      throw new DecodeException(object.key() + " at resourceVersion "
          + object.resourceVersion() + ": " + e.getMessage(), e);
    }
    if (decoded == null) {
      throw new DecodeException(object.key() + " at resourceVersion "
          + object.resourceVersion() + ": decoder returned null", null);
    }
    return decoded;
  }

  /** Decodes every object, in order; fails on the first that does not decode. */
  public List<T> decodeAll(List<KubeObject> objects) {
    List<T> decoded = new ArrayList<>(objects.size());
    for (KubeObject object : objects) {
      decoded.add(decode(object));
    }
    return Collections.unmodifiableList(decoded);
  }

  /** The cached object with this namespace and name, decoded. */
  public Optional<T> get(Lister lister, String namespace, String name) {
    return lister.get(namespace, name).map(this::decode);
  }
}
