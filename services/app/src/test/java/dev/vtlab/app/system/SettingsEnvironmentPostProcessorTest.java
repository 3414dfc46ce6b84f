package dev.vtlab.app.system;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spring properties the app's variables stand for, set from the parsed settings. No database or stub
 * needed: nothing starts. A MockEnvironment holds only what a test puts in, never the shell's variables.
 */
class SettingsEnvironmentPostProcessorTest {

    @Test
    void withNoEnvironmentTheAppGetsTheDefaultsApplicationPropertiesOnceSpelledOut() {
        MockEnvironment environment = postProcessed(new MockEnvironment());

        assertThat(environment.getProperty("spring.threads.virtual.enabled")).isEqualTo("false");
        assertThat(environment.getProperty("server.tomcat.threads.max")).isEqualTo("200");
        assertThat(environment.getProperty("server.address")).isEqualTo("127.0.0.1");
        assertThat(environment.getProperty("server.port")).isEqualTo("8080");
        assertThat(environment.getProperty("spring.datasource.url")).isEqualTo("jdbc:postgresql://127.0.0.1:5544/vtlab");
        assertThat(environment.getProperty("spring.datasource.username")).isEqualTo("vtlab");
        assertThat(environment.getProperty("spring.datasource.password")).isEmpty();
        assertThat(environment.getProperty("spring.datasource.hikari.maximum-pool-size")).isEqualTo("50");
        assertThat(environment.getProperty("spring.datasource.hikari.minimum-idle")).isEqualTo("50");
        assertThat(environment.getProperty("spring.datasource.hikari.connection-timeout")).isEqualTo("5000");
        assertThat(environment.getProperty("spring.http.clients.connect-timeout")).isEqualTo("2000ms");
        assertThat(environment.getProperty("spring.http.clients.read-timeout")).isEqualTo("10000ms");
        assertThat(environment.getProperty("management.server.port")).isNull();
    }

    @Test
    void eachVariableSetsTheSpringPropertyItStandsFor() {
        MockEnvironment environment = postProcessed(new MockEnvironment().withProperty("VT_ENABLED", "true")
                .withProperty("TOMCAT_MAX_THREADS", "400").withProperty("HIKARI_MAX_POOL", "7")
                .withProperty("DB_POOL_TIMEOUT_MS", "800").withProperty("DOWNSTREAM_READ_TIMEOUT_MS", "1500")
                .withProperty("SERVER_PORT", "9000").withProperty("TOMCAT_MAX_CONNECTIONS", "11000")
                .withProperty("TOMCAT_ACCEPT_COUNT", "2000"));

        assertThat(environment.getProperty("spring.threads.virtual.enabled")).isEqualTo("true");
        assertThat(environment.getProperty("server.tomcat.max-connections")).isEqualTo("11000");
        assertThat(environment.getProperty("server.tomcat.accept-count")).isEqualTo("2000");
        assertThat(environment.getProperty("server.tomcat.threads.max")).isEqualTo("400");
        assertThat(environment.getProperty("spring.datasource.hikari.maximum-pool-size")).isEqualTo("7");
        assertThat(environment.getProperty("spring.datasource.hikari.minimum-idle")).isEqualTo("7");
        assertThat(environment.getProperty("spring.datasource.hikari.connection-timeout")).isEqualTo("800");
        assertThat(environment.getProperty("spring.http.clients.read-timeout")).isEqualTo("1500ms");
        assertThat(environment.getProperty("server.port")).isEqualTo("9000");
    }

    @Test
    void anExplicitSpringPropertyOutranksTheOneDerivedFromAVariable() {
        // As with application.properties' placeholders: a test's server.port=0 (RANDOM_PORT) must still win.
        MockEnvironment environment = postProcessed(new MockEnvironment().withProperty("SERVER_PORT", "9000")
                .withProperty("server.port", "0"));

        assertThat(environment.getProperty("server.port")).isEqualTo("0");
    }

    @Test
    void serverVariablesAreBoundAsValidatedNotRaw() {
        // Spring reads SERVER_ADDRESS as server.address itself: the trimmed value must outrank the raw variable.
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        Map.of("SERVER_ADDRESS", " 127.0.0.2 ", "SERVER_PORT", " 9001 ")));

        new SettingsEnvironmentPostProcessor().postProcessEnvironment(environment, new SpringApplication());

        assertThat(environment.getProperty("server.address")).isEqualTo("127.0.0.2");
        assertThat(environment.getProperty("server.port")).isEqualTo("9001");
    }

    @Test
    void aManagementPortPutsActuatorAndTheDocumentationOnItsOwnServer() {
        MockEnvironment environment = postProcessed(new MockEnvironment().withProperty("MANAGEMENT_PORT", "9090")
                .withProperty("springdoc.api-docs.enabled", "false"));

        assertThat(environment.getProperty("management.server.port")).isEqualTo("9090");
        assertThat(environment.getProperty("management.server.address")).isEqualTo("127.0.0.1");
        assertThat(environment.getProperty("springdoc.api-docs.enabled")).isEqualTo("true");
    }

    private static MockEnvironment postProcessed(MockEnvironment environment) {
        new SettingsEnvironmentPostProcessor().postProcessEnvironment(environment, new SpringApplication());
        return environment;
    }
}
