package dev.vtlab.stub;

import dev.vtlab.common.InvalidSettingException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.builder.SpringApplicationBuilder;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StartupValidationTest {

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', textBlock = """
            STUB_DELAY_MS  | slow   | STUB_DELAY_MS must be an integer between 0 and 600000, got 'slow'
            STUB_JITTER_MS | -1     | STUB_JITTER_MS must be an integer between 0 and 600000, got '-1'
            SERVER_PORT    | 99999  | SERVER_PORT must be an integer between 0 and 65535, got '99999'
            """)
    void invalidEnvironmentValueStopsStartUpNamingTheVariable(String variable, String value, String message) {
        SpringApplicationBuilder app = new SpringApplicationBuilder(StubApplication.class).logStartupInfo(false);

        assertThatThrownBy(() -> app.run("--" + variable + "=" + value))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage(message);
    }
}
