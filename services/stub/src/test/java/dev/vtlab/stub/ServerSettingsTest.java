package dev.vtlab.stub;

import java.util.Map;

import dev.vtlab.stub.system.SettingsEnvironmentPostProcessor;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/** Where the stub listens: from StubSettings' parsed values, defaulted there once. Nothing starts. */
class ServerSettingsTest {

    @Test
    void withNoVariablesTheStubListensOnLoopbackPort8081() {
        StandardEnvironment environment = postProcessed(Map.of());

        assertThat(environment.getProperty("server.address")).isEqualTo("127.0.0.1");
        assertThat(environment.getProperty("server.port")).isEqualTo("8081");
    }

    @Test
    void serverVariablesAreBoundAsValidatedNotRaw() {
        // Spring reads SERVER_ADDRESS as server.address itself: the trimmed value must outrank the raw variable.
        StandardEnvironment environment =
                postProcessed(Map.of("SERVER_ADDRESS", " 127.0.0.2 ", "SERVER_PORT", " 9001 "));

        assertThat(environment.getProperty("server.address")).isEqualTo("127.0.0.2");
        assertThat(environment.getProperty("server.port")).isEqualTo("9001");
    }

    /** A standard environment whose variables are these alone, not the shell's, after the stub's post-processor. */
    private static StandardEnvironment postProcessed(Map<String, Object> variables) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        variables));
        new SettingsEnvironmentPostProcessor().postProcessEnvironment(environment, new SpringApplication());
        return environment;
    }
}
