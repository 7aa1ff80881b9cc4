package io.informerd.client;

/** An object's JSON could not be decoded into the requested type. */
public final class DecodeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public DecodeException(String message, Throwable cause) {
    super(message, cause);
  }
}
