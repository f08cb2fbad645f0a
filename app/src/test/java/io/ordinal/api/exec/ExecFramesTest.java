package io.ordinal.api.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.store.KubeJson;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExecFramesTest {

  @Test
  void anOutputFrameIsTheStreamIdThenTheBytes() {
    byte[] buffer = "hello, and more".getBytes(StandardCharsets.UTF_8);
    assertArrayEquals(new byte[] {1, 'h', 'e', 'l', 'l', 'o'}, ExecFrames.frame(ExecFrames.STDOUT, buffer, 5));
    assertArrayEquals(new byte[] {2}, ExecFrames.frame(ExecFrames.STDERR, buffer, 0));
  }

  @Test
  void stdinFramesCarryTheBytesAfterTheStreamId() {
    var inbound = ExecFrames.parse(new byte[] {0, 'h', 'i', '\n'}, ExecFrames.V5);
    assertArrayEquals("hi\n".getBytes(StandardCharsets.UTF_8), assertInstanceOf(ExecFrames.Inbound.Stdin.class, inbound).data());
  }

  @Test
  void resizeIsKubectlsTerminalSizeJson() {
    byte[] json = "{\"Width\":123,\"Height\":45}\n".getBytes(StandardCharsets.UTF_8);
    assertEquals(new ExecFrames.Inbound.Resize(123, 45), ExecFrames.parse(withStream(4, json), ExecFrames.V5));
    // Go's JSON decoding matches field names without regard to case.
    assertEquals(new ExecFrames.Inbound.Resize(80, 24),
        ExecFrames.parse(withStream(4, "{\"width\":80,\"height\":24}".getBytes(StandardCharsets.UTF_8)), ExecFrames.V4));
  }

  @Test
  void aMalformedResizeIsIgnoredNotFatal() {
    for (String body : List.of("not json", "{\"Width\":10}", "{\"Width\":-1,\"Height\":5}", "{\"Width\":70000,\"Height\":5}", "[]")) {
      assertInstanceOf(ExecFrames.Inbound.Ignored.class,
          ExecFrames.parse(withStream(4, body.getBytes(StandardCharsets.UTF_8)), ExecFrames.V5), body);
    }
  }

  @Test
  void theCloseMessageHalfClosesAStreamOnlyInV5() {
    assertEquals(new ExecFrames.Inbound.CloseStream(0), ExecFrames.parse(new byte[] {(byte) 255, 0}, ExecFrames.V5));
    assertInstanceOf(ExecFrames.Inbound.Ignored.class, ExecFrames.parse(new byte[] {(byte) 255, 0}, ExecFrames.V4));
    assertInstanceOf(ExecFrames.Inbound.Ignored.class, ExecFrames.parse(new byte[] {(byte) 255}, ExecFrames.V5));
  }

  @Test
  void streamsOnlyTheServerWritesAndEmptyMessagesAreIgnored() {
    for (byte stream : new byte[] {1, 2, 3, 7}) {
      assertInstanceOf(ExecFrames.Inbound.Ignored.class, ExecFrames.parse(new byte[] {stream, 'x'}, ExecFrames.V5));
    }
    assertInstanceOf(ExecFrames.Inbound.Ignored.class, ExecFrames.parse(new byte[0], ExecFrames.V5));
  }

  @Test
  void exitCodeZeroIsASuccessStatusOnTheErrorStream() {
    byte[] frame = ExecFrames.exitStatus(0, List.of("true"));
    assertEquals(ExecFrames.ERROR, frame[0]);
    assertEquals("Success", status(frame).get("status").asText());
  }

  @Test
  void aNonZeroExitCodeIsAFailureWithTheExitCodeCauseKubectlExitsWith() {
    JsonNode status = status(ExecFrames.exitStatus(3, List.of("sh", "-c", "exit 3")));
    assertEquals("Failure", status.get("status").asText());
    assertEquals("NonZeroExitCode", status.get("reason").asText());
    // client-go's errorDecoderV4 reads details.causes[].reason == "ExitCode" and its message as the code.
    assertEquals("ExitCode", status.at("/details/causes/0/reason").asText());
    assertEquals("3", status.at("/details/causes/0/message").asText());
  }

  @Test
  void aCommandThatCouldNotRunIsAFailureWithItsMessage() {
    JsonNode status = status(ExecFrames.failureStatus(400, "BadRequest", "container not found"));
    assertEquals("Failure", status.get("status").asText());
    assertEquals("container not found", status.get("message").asText());
    assertEquals(400, status.get("code").asInt());
  }

  private static byte[] withStream(int stream, byte[] payload) {
    byte[] message = new byte[payload.length + 1];
    message[0] = (byte) stream;
    System.arraycopy(payload, 0, message, 1, payload.length);
    return message;
  }

  private static JsonNode status(byte[] frame) {
    try {
      return KubeJson.JSON.readTree(new String(Arrays.copyOfRange(frame, 1, frame.length), StandardCharsets.UTF_8));
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }
}
