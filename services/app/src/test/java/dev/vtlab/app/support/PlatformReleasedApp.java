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
 * The default shape of the app: platform threads, connection released before the downstream call.
 *
 * <p>Every test class using this annotation shares one cached application context. All mode variables
 * are set explicitly so that values exported in the developer's shell cannot change what is tested.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "VT_ENABLED=false",
        "CONN_MODE=released",
        "PATH_MODE=normal",
        "DB_POOL_MAX=3",
        "TOMCAT_MAX_THREADS=200",
        "DB_POOL_TIMEOUT_MS=5000",
        "DOWNSTREAM_CONNECT_TIMEOUT_MS=2000",
        "DOWNSTREAM_READ_TIMEOUT_MS=10000",
        "OFFLOAD_EXECUTOR=platform",
        "OFFLOAD_POOL=1"
})
public @interface PlatformReleasedApp {
}
