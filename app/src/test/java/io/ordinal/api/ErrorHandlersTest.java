package io.ordinal.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.grpc.Status;
import io.micronaut.data.connection.exceptions.ConnectionException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

class ErrorHandlersTest {
  @Test
  void aDatabaseRestartIsAnOutageNotAnInternalError() {
    // The causes seen in service logs while the fault harness restarted PostgreSQL.
    assertEquals("the database", ErrorHandlers.unavailableDependency(new ConnectionException(
        "Could not set JDBC Connection read-only", new SQLException("Connection is closed"))));
    assertEquals("the database", ErrorHandlers.unavailableDependency(new SQLException(
        "FATAL: terminating connection due to administrator command", "57P01")));
    assertEquals("the database", ErrorHandlers.unavailableDependency(new RuntimeException(
        new SQLException("An I/O error occurred while sending to the backend.", "08006"))));
    assertEquals("the database", ErrorHandlers.unavailableDependency(new RuntimeException("Failed to obtain JDBC Connection",
        new SQLTransientConnectionException("Connection is not available, request timed out after 30000ms."))));
    assertEquals("the database", ErrorHandlers.unavailableDependency(new RuntimeException(
        new PSQLException("Connection to localhost:5432 refused.", PSQLState.CONNECTION_UNABLE_TO_CONNECT))));
  }

  @Test
  void anUnreachableTemporalIsAnOutage() {
    assertEquals("Temporal", ErrorHandlers.unavailableDependency(
        new RuntimeException(Status.UNAVAILABLE.withDescription("io exception").asRuntimeException())));
  }

  @Test
  void otherErrorsStayInternalErrors() {
    assertNull(ErrorHandlers.unavailableDependency(new IllegalStateException("bug")));
    assertNull(ErrorHandlers.unavailableDependency(new PSQLException("duplicate key", PSQLState.UNIQUE_VIOLATION)));
    assertNull(ErrorHandlers.unavailableDependency(Status.INVALID_ARGUMENT.asRuntimeException()));
  }
}
