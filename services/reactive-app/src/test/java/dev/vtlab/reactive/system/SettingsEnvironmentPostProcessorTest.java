package dev.vtlab.reactive.system;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spring properties the twin's variables stand for, set from the parsed settings. No database or stub
 * needed: nothing starts. A MockEnvironment holds only what a test puts in, never the shell's variables.
 */
class SettingsEnvironmentPostProcessorTest {

    @Test
    void withNoEnvironmentTheTwinGetsTheAppsDefaults() {
        MockEnvironment environment = postProcessed(new MockEnvironment());

        assertThat(environment.getProperty("server.address")).isEqualTo("127.0.0.1");
        assertThat(environment.getProperty("server.port")).isEqualTo("8080");
        assertThat(environment.getProperty("spring.r2dbc.url")).isEqualTo("r2dbc:postgresql://127.0.0.1:5544/vtlab");
        assertThat(environment.getProperty("spring.r2dbc.username")).isEqualTo("vtlab");
        assertThat(environment.getProperty("spring.r2dbc.pool.max-size")).isEqualTo("50");
        assertThat(environment.getProperty("spring.r2dbc.pool.min-idle")).isEqualTo("50");
        assertThat(environment.getProperty("spring.r2dbc.pool.initial-size")).isEqualTo("50");
        assertThat(environment.getProperty("spring.r2dbc.pool.max-acquire-time")).isEqualTo("5000ms");
        assertThat(environment.getProperty("spring.r2dbc.pool.acquire-retry")).isEqualTo("0");
        assertThat(environment.getProperty("spring.http.clients.connect-timeout")).isEqualTo("2000ms");
        assertThat(environment.getProperty("spring.http.clients.read-timeout")).isEqualTo("10000ms");
        assertThat(environment.getProperty("management.server.port")).isNull();
    }

    @Test
    void theTwinDoesNotReadTheAppsOlderPoolSizeName() {
        MockEnvironment environment = postProcessed(new MockEnvironment().withProperty("HIKARI_MAX_POOL", "7"));

        assertThat(environment.getProperty("spring.r2dbc.pool.max-size")).isEqualTo("50");
    }

    @Test
    void anExplicitSpringPropertyOutranksTheOneDerivedFromAVariable() {
        // As with application.properties' placeholders: a test's server.port=0 (RANDOM_PORT) must still win.
        MockEnvironment environment = postProcessed(new MockEnvironment().withProperty("SERVER_PORT", "9000")
                .withProperty("server.port", "0"));

        assertThat(environment.getProperty("server.port")).isEqualTo("0");
    }

    @Test
    void aManagementPortPutsActuatorAndTheDocumentationOnItsOwnServer() {
        MockEnvironment environment = postProcessed(new MockEnvironment().withProperty("MANAGEMENT_PORT", "9090")
                .withProperty("SERVER_ADDRESS", "10.0.0.5"));

        assertThat(environment.getProperty("management.server.port")).isEqualTo("9090");
        assertThat(environment.getProperty("management.server.address")).isEqualTo("10.0.0.5");
        assertThat(environment.getProperty("springdoc.use-management-port")).isEqualTo("true");
    }

    private static MockEnvironment postProcessed(MockEnvironment environment) {
        new SettingsEnvironmentPostProcessor().postProcessEnvironment(environment, new SpringApplication());
        return environment;
    }
}
