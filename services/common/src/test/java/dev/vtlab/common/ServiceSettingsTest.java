package dev.vtlab.common;

import java.net.URI;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The settings both services share: their defaults, bounds and the Spring properties they stand for. */
class ServiceSettingsTest {

    @Test
    void anEmptyEnvironmentGivesTheDocumentedDefaults() {
        ServiceSettings settings = ServiceSettings.from(new MockEnvironment());

        assertThat(settings).isEqualTo(new ServiceSettings("jdbc:postgresql://127.0.0.1:5544/vtlab", "vtlab", "", 50,
                Duration.ofMillis(5000), URI.create("http://127.0.0.1:8081"), "127.0.0.1", 8080,
                Duration.ofMillis(2000), Duration.ofMillis(10_000), null));
    }

    @Test
    void theDefaultsBecomeTheSpringPropertiesApplicationPropertiesOnceHeld() {
        // What server.port=${SERVER_PORT:8080} and its neighbours resolved to with no environment at all.
        ServiceSettings settings = ServiceSettings.from(new MockEnvironment());
        assertThat(settings.serverProperties()).containsExactlyInAnyOrderEntriesOf(
                Map.of("server.address", "127.0.0.1", "server.port", 8080));
        assertThat(settings.springProperties()).containsExactlyInAnyOrderEntriesOf(
                Map.of("spring.http.clients.connect-timeout", "2000ms", "spring.http.clients.read-timeout", "10000ms"));
    }

    @Test
    void valuesAreTrimmedAndTheStubUrlLosesItsTrailingSlash() {
        MockEnvironment env = new MockEnvironment().withProperty("STUB_URL", " http://stub:9000/ ")
                .withProperty("DB_POOL_TIMEOUT_MS", " 250 ").withProperty("SERVER_ADDRESS", " 0.0.0.0 ");

        ServiceSettings settings = ServiceSettings.from(env);

        assertThat(settings.stubUrl()).isEqualTo(URI.create("http://stub:9000"));
        assertThat(settings.dbPoolTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(settings.serverAddress()).isEqualTo("0.0.0.0");
    }

    @Test
    void aPoolTimeoutBelowHikarisFloorIsRefusedNamingTheVariable() {
        MockEnvironment env = new MockEnvironment().withProperty("DB_POOL_TIMEOUT_MS", "249");

        assertThatThrownBy(() -> ServiceSettings.from(env)).isInstanceOf(InvalidSettingException.class)
                .hasMessage("DB_POOL_TIMEOUT_MS must be an integer between 250 and 3600000, got '249'");
    }

    @Test
    void thePoolSizeIsReadUnderItsOlderNameOnlyWhenAskedTo() {
        MockEnvironment env = new MockEnvironment().withProperty("HIKARI_MAX_POOL", "7");

        assertThat(ServiceSettings.from(env, "HIKARI_MAX_POOL").dbPoolMax()).isEqualTo(7);
        assertThat(ServiceSettings.from(env).dbPoolMax()).as("the twin never read HIKARI_MAX_POOL").isEqualTo(50);
    }

    @Test
    void thePoolSizeUnderBothNamesMayAgreeButNotDiffer() {
        MockEnvironment agree = new MockEnvironment().withProperty("DB_POOL_MAX", "4").withProperty("HIKARI_MAX_POOL", "4");
        MockEnvironment differ = new MockEnvironment().withProperty("DB_POOL_MAX", "3").withProperty("HIKARI_MAX_POOL", "4");

        assertThat(ServiceSettings.from(agree, "HIKARI_MAX_POOL").dbPoolMax()).isEqualTo(4);
        assertThatThrownBy(() -> ServiceSettings.from(differ, "HIKARI_MAX_POOL"))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("DB_POOL_MAX must be the same as HIKARI_MAX_POOL (its older name, set to '4') when both "
                        + "are set, got '3'");
    }

    @Test
    void aManagementPortMovesActuatorAndTheApiDocumentationToItsOwnServer() {
        ServiceSettings settings = ServiceSettings.from(new MockEnvironment().withProperty("MANAGEMENT_PORT", "9090")
                .withProperty("SERVER_ADDRESS", "10.0.0.5"));

        assertThat(settings.managementProperties()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "management.server.port", 9090, "management.server.address", "10.0.0.5",
                "springdoc.use-management-port", true, "springdoc.api-docs.enabled", true,
                "springdoc.swagger-ui.enabled", true));
    }

    @Test
    void withoutAManagementPortActuatorStaysOnTheAppsPort() {
        assertThat(ServiceSettings.from(new MockEnvironment()).managementProperties()).isEmpty();
    }

    @Test
    void thePasswordNeverAppearsInTheSettingsText() {
        ServiceSettings settings = ServiceSettings.from(new MockEnvironment().withProperty("DB_PASSWORD", "s3cret"));

        assertThat(settings.dbPassword()).isEqualTo("s3cret");
        assertThat(settings.toString()).doesNotContain("s3cret");
    }
}
