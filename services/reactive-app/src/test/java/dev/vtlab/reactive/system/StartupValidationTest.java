package dev.vtlab.reactive.system;

import dev.vtlab.common.InvalidSettingException;
import dev.vtlab.common.InvalidSettingFailureAnalyzer;
import dev.vtlab.reactive.ReactiveAppApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.builder.SpringApplicationBuilder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** No database or stub needed: validation stops start-up before anything connects. */
class StartupValidationTest {

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', textBlock = """
            DB_POOL_MAX                   | 0                     | DB_POOL_MAX must be an integer >= 1, got '0'
            DB_POOL_MAX                   | lots                  | DB_POOL_MAX must be an integer >= 1, got 'lots'
            DB_POOL_TIMEOUT_MS            | 10                    | DB_POOL_TIMEOUT_MS must be an integer between 250 and 3600000, got '10'
            MANAGEMENT_PORT               | http                  | MANAGEMENT_PORT must be an integer between 0 and 65535, got 'http'
            SERVER_PORT                   | 70000                 | SERVER_PORT must be an integer between 0 and 65535, got '70000'
            DOWNSTREAM_CONNECT_TIMEOUT_MS | 0                     | DOWNSTREAM_CONNECT_TIMEOUT_MS must be an integer between 1 and 3600000, got '0'
            DOWNSTREAM_READ_TIMEOUT_MS    | soon                  | DOWNSTREAM_READ_TIMEOUT_MS must be an integer between 1 and 3600000, got 'soon'
            STUB_URL                      | ftp://stub            | STUB_URL must be an absolute http:// or https:// URL
            DB_URL                        | jdbc:h2:mem           | DB_URL must be a PostgreSQL JDBC URL
            DB_URL                        | r2dbc:postgresql://h/db | DB_URL must be a PostgreSQL JDBC URL
            DB_URL                        | jdbc:postgresql:vtlab | DB_URL must be a PostgreSQL JDBC URL
            DB_USER                       | ' '                   | DB_USER must be a non-empty value
            """)
    void invalidEnvironmentValueStopsStartUpNamingTheVariable(String variable, String value, String message) {
        // A command-line argument outranks a real environment variable of the same name.
        SpringApplicationBuilder app = new SpringApplicationBuilder(ReactiveAppApplication.class).logStartupInfo(false);

        assertThatThrownBy(() -> app.run("--" + variable + "=" + value))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageStartingWith(message);
    }

    @Test
    void failureAnalysisNamesTheVariableToFix() {
        InvalidSettingException failure = new InvalidSettingException("DB_POOL_MAX", "an integer >= 1", "0");

        assertThat(new InvalidSettingFailureAnalyzer().analyze(failure).getAction()).contains("DB_POOL_MAX");
    }

    @Test
    void jdbcUrlBecomesTheSameR2dbcUrl() {
        assertThat(JdbcToR2dbcUrl.convert("jdbc:postgresql://127.0.0.1:5544/vtlab"))
                .isEqualTo("r2dbc:postgresql://127.0.0.1:5544/vtlab");
        assertThat(JdbcToR2dbcUrl.convert("jdbc:postgresql://db.local/vtlab?sslmode=disable"))
                .isEqualTo("r2dbc:postgresql://db.local/vtlab?sslmode=disable");
    }
}
