package dev.vtlab.app.system;

import dev.vtlab.app.AppApplication;
import dev.vtlab.common.InvalidSettingException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.builder.SpringApplicationBuilder;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** No database or stub needed: validation stops start-up before anything connects. */
class StartupValidationTest {

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', textBlock = """
            VT_ENABLED                    | maybe       | VT_ENABLED must be true or false, got 'maybe'
            DB_POOL_MAX                   | 0           | DB_POOL_MAX must be an integer >= 1, got '0'
            DB_POOL_MAX                   | lots        | DB_POOL_MAX must be an integer >= 1, got 'lots'
            HIKARI_MAX_POOL               | lots        | HIKARI_MAX_POOL must be an integer >= 1, got 'lots'
            CONN_MODE                     | sometimes   | CONN_MODE must be released or held, got 'sometimes'
            PATH_MODE                     | locked      | PATH_MODE must be normal, synchronized, synchronized-platform-http or pinned-control, got 'locked'
            TOMCAT_MAX_THREADS            | -1          | TOMCAT_MAX_THREADS must be an integer >= 1, got '-1'
            TOMCAT_MAX_CONNECTIONS        | 0           | TOMCAT_MAX_CONNECTIONS must be an integer between 1 and 1000000, got '0'
            TOMCAT_ACCEPT_COUNT           | many        | TOMCAT_ACCEPT_COUNT must be an integer between 1 and 1000000, got 'many'
            DOWNSTREAM_HTTP               | http3       | DOWNSTREAM_HTTP must be http1 or http2, got 'http3'
            SERVER                        | undertow    | SERVER must be tomcat, jetty or netty, got 'undertow'
            HTTP_CLIENT                   | okhttp      | HTTP_CLIENT must be jdk, apache, reactor or jetty, got 'okhttp'
            CLIENT_POOL                   | -1          | CLIENT_POOL must be an integer between 0 and 100000, got '-1'
            CLIENT_POOL                   | 8           | CLIENT_POOL must be 0 with HTTP_CLIENT=jdk (the JDK's client has no connection limit to size), got '8'
            OFFLOAD_EXECUTOR              | green       | OFFLOAD_EXECUTOR must be platform or virtual, got 'green'
            OFFLOAD_POOL                  | 0           | OFFLOAD_POOL must be an integer between 1 and 10000, got '0'
            POOL_IMPL                     | c3p0        | POOL_IMPL must be hikari or agroal, got 'c3p0'
            MANAGEMENT_PORT               | http        | MANAGEMENT_PORT must be an integer between 0 and 65535, got 'http'
            SERVER_PORT                   | 70000       | SERVER_PORT must be an integer between 0 and 65535, got '70000'
            DB_POOL_TIMEOUT_MS            | 10          | DB_POOL_TIMEOUT_MS must be an integer between 250 and 3600000, got '10'
            DOWNSTREAM_CONNECT_TIMEOUT_MS | 0           | DOWNSTREAM_CONNECT_TIMEOUT_MS must be an integer between 1 and 3600000, got '0'
            DOWNSTREAM_READ_TIMEOUT_MS    | soon        | DOWNSTREAM_READ_TIMEOUT_MS must be an integer between 1 and 3600000, got 'soon'
            STUB_URL                      | ftp://stub  | STUB_URL must be an absolute http:// or https:// URL
            DB_URL                        | jdbc:h2:mem | DB_URL must be a PostgreSQL JDBC URL
            """)
    void invalidEnvironmentValueStopsStartUpNamingTheVariable(String variable, String value, String message) {
        // A command-line argument outranks a real environment variable of the same name.
        SpringApplicationBuilder app = new SpringApplicationBuilder(AppApplication.class).logStartupInfo(false);

        assertThatThrownBy(() -> app.run("--" + variable + "=" + value))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageStartingWith(message);
    }

    @Test
    void thePathsWithTheirOwnClientRefuseAnother() {
        SpringApplicationBuilder app = new SpringApplicationBuilder(AppApplication.class).logStartupInfo(false);

        assertThatThrownBy(() -> app.run("--HTTP_CLIENT=jetty", "--PATH_MODE=pinned-control"))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageStartingWith("HTTP_CLIENT must be jdk with PATH_MODE=pinned-control (that path calls the "
                        + "stub through its own JDK client), got 'jetty'");
    }

    @Test
    void nettyRunsNoServletFilterToBindTheRequestContext() {
        SpringApplicationBuilder app = new SpringApplicationBuilder(AppApplication.class).logStartupInfo(false);

        assertThatThrownBy(() -> app.run("--SERVER=netty", "--CONTEXT_MODE=threadlocal"))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageStartingWith("CONTEXT_MODE must be none with SERVER=netty (the request context is bound by "
                        + "a servlet filter, which WebFlux does not run), got 'threadlocal'");
    }

    @Test
    void onlyTheJdkClientOffersHttp2() {
        SpringApplicationBuilder app = new SpringApplicationBuilder(AppApplication.class).logStartupInfo(false);

        assertThatThrownBy(() -> app.run("--HTTP_CLIENT=apache", "--DOWNSTREAM_HTTP=http2"))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageStartingWith("DOWNSTREAM_HTTP must be http1 with HTTP_CLIENT=apache (http2 is the JDK "
                        + "client's h2c upgrade), got 'http2'");
    }

    @Test
    void thePoolSizeUnderBothItsNamesMustAgree() {
        SpringApplicationBuilder app = new SpringApplicationBuilder(AppApplication.class).logStartupInfo(false);

        assertThatThrownBy(() -> app.run("--DB_POOL_MAX=3", "--HIKARI_MAX_POOL=4"))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageStartingWith("DB_POOL_MAX must be the same as HIKARI_MAX_POOL (its older name, set to '4') "
                        + "when both are set, got '3'");
    }
}
