package io.ordinal.api.exec;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.ordinal.store.KubeJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The channel protocol of kubectl exec over WebSocket ({@code v4.channel.k8s.io} and
 * {@code v5.channel.k8s.io}): every message is binary, its first byte the stream it belongs to.
 * Upstream: k8s.io/apimachinery/pkg/util/remotecommand/constants.go and client-go's
 * tools/remotecommand/websocket.go.
 */
public final class ExecFrames {
  public static final String V4 = "v4.channel.k8s.io";
  /** v4 plus the CLOSE message: a client half-closes stdin with {@code [255, 0]}. */
  public static final String V5 = "v5.channel.k8s.io";

  public static final int STDIN = 0;
  public static final int STDOUT = 1;
  public static final int STDERR = 2;
  /** Server to client, once, last: a metav1.Status telling how the command ended. */
  public static final int ERROR = 3;
  /** Client to server: the terminal's size as JSON {@code {"Width":w,"Height":h}}. */
  public static final int RESIZE = 4;
  public static final int CLOSE = 255;

  private ExecFrames() {}

  /** What a message from the client asks for. */
  public sealed interface Inbound {
    record Stdin(byte[] data) implements Inbound {}

    record Resize(int columns, int rows) implements Inbound {}

    /** The client will send no more on that stream (v5). */
    record CloseStream(int stream) implements Inbound {}

    /** Nothing to do: an empty message, a stream the client does not write, a malformed resize. */
    record Ignored(String why) implements Inbound {}
  }

  /** One message of the server: the stream's id, then {@code length} bytes of {@code data}. */
  public static byte[] frame(int stream, byte[] data, int length) {
    byte[] frame = new byte[length + 1];
    frame[0] = (byte) stream;
    System.arraycopy(data, 0, frame, 1, length);
    return frame;
  }

  public static Inbound parse(byte[] message, String protocol) {
    if (message.length == 0) {
      return new Inbound.Ignored("empty message");
    }
    int stream = message[0] & 0xff;
    byte[] payload = Arrays.copyOfRange(message, 1, message.length);
    return switch (stream) {
      case STDIN -> new Inbound.Stdin(payload);
      case RESIZE -> resize(payload);
      case CLOSE -> V5.equals(protocol) && payload.length == 1
          ? new Inbound.CloseStream(payload[0] & 0xff)
          : new Inbound.Ignored("close message outside " + V5);
      default -> new Inbound.Ignored("stream " + stream + " is not written by clients");
    };
  }

  /** Go's encoding/json matches field names case-insensitively; kubectl writes "Width" and "Height". */
  private static Inbound resize(byte[] payload) {
    try {
      JsonNode size = KubeJson.JSON.readTree(new String(payload, StandardCharsets.UTF_8));
      Integer width = null;
      Integer height = null;
      for (Iterator<Map.Entry<String, JsonNode>> fields = size.fields(); fields.hasNext(); ) {
        Map.Entry<String, JsonNode> field = fields.next();
        if (field.getKey().equalsIgnoreCase("width") && field.getValue().canConvertToInt()) {
          width = field.getValue().intValue();
        } else if (field.getKey().equalsIgnoreCase("height") && field.getValue().canConvertToInt()) {
          height = field.getValue().intValue();
        }
      }
      if (width == null || height == null || width < 0 || height < 0 || width > 0xffff || height > 0xffff) {
        return new Inbound.Ignored("resize without a valid Width and Height");
      }
      return new Inbound.Resize(width, height);
    } catch (IOException | RuntimeException e) {
      return new Inbound.Ignored("resize is not JSON");
    }
  }

  /**
   * The error stream's message for a command that exited: Success for 0, else Failure with reason
   * NonZeroExitCode and a cause ExitCode carrying the code, from which kubectl takes its own exit code.
   */
  public static byte[] exitStatus(int exitCode, List<String> command) {
    if (exitCode == 0) {
      return status(new StatusBuilder().withStatus("Success").build());
    }
    return status(new StatusBuilder().withStatus("Failure").withReason("NonZeroExitCode")
        .withMessage("command terminated with non-zero exit code: error executing command " + command
            + ", exit code " + exitCode)
        .withNewDetails().withCauses(new StatusCause(null, Integer.toString(exitCode), "ExitCode")).endDetails()
        .build());
  }

  /** The error stream's message for a command that could not be run at all; kubectl prints it and exits 1. */
  public static byte[] failureStatus(int code, String reason, String message) {
    return status(new StatusBuilder().withStatus("Failure").withCode(code).withReason(reason).withMessage(message)
        .build());
  }

  private static byte[] status(Status status) {
    status.setApiVersion("v1");
    status.setKind("Status");
    byte[] json = KubeJson.write(status).getBytes(StandardCharsets.UTF_8);
    return frame(ERROR, json, json.length);
  }
}
