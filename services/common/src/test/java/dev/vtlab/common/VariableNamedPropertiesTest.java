package dev.vtlab.common;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/** Where the parsed server.address and server.port go: over the variables Spring reads them from, under the rest. */
class VariableNamedPropertiesTest {

    @Test
    void theParsedValueOutranksTheRawVariableOfTheSameName() {
        StandardEnvironment environment = withVariables(Map.of("SERVER_PORT", " 9001 "));

        VariableNamedProperties.addOverTheirVariables(environment, "derived", Map.of("server.port", 9001));

        assertThat(environment.getProperty("server.port")).isEqualTo("9001");
    }

    @Test
    void aSystemPropertyStillOutranksTheParsedValue() {
        StandardEnvironment environment = withVariables(Map.of("SERVER_PORT", "9001"));
        environment.getPropertySources().addFirst(new MapPropertySource("explicit", Map.of("server.port", "0")));

        VariableNamedProperties.addOverTheirVariables(environment, "derived", Map.of("server.port", 9001));

        assertThat(environment.getProperty("server.port")).isEqualTo("0");
    }

    @Test
    void withoutASystemEnvironmentTheyGoLast() {
        MockEnvironment environment = new MockEnvironment().withProperty("server.port", "0");

        VariableNamedProperties.addOverTheirVariables(environment, "derived", Map.of("server.port", 9001));

        assertThat(environment.getProperty("server.port")).isEqualTo("0");
    }

    /** A standard environment whose variables are these alone, not the shell's. */
    private static StandardEnvironment withVariables(Map<String, Object> variables) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        variables));
        return environment;
    }
}
