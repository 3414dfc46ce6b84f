package dev.vtlab.app.support;

import dev.vtlab.testsupport.LabInfrastructure;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/**
 * Every knob away from its default: virtual threads, held connection, synchronized path, odd sizes.
 *
 * <p>Every test class using this annotation shares one cached application context. All mode variables
 * are set explicitly so that values exported in the developer's shell cannot change what is tested.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "VT_ENABLED=true",
        "CONN_MODE=held",
        "PATH_MODE=synchronized",
        "DB_POOL_MAX=7",
        "TOMCAT_MAX_THREADS=123",
        "TOMCAT_MAX_CONNECTIONS=12000",
        "TOMCAT_ACCEPT_COUNT=300",
        "DOWNSTREAM_HTTP=http2",
        "DB_POOL_TIMEOUT_MS=4000",
        "DOWNSTREAM_CONNECT_TIMEOUT_MS=1500",
        "DOWNSTREAM_READ_TIMEOUT_MS=9000",
        "OFFLOAD_EXECUTOR=virtual",
        "OFFLOAD_POOL=9"
})
public @interface VirtualHeldSynchronizedApp {
}
