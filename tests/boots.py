"""A jar that reads as a Spring Boot executable one by its manifest alone: what the flag checks look at."""

from __future__ import annotations

import zipfile


def boot_jar(path, manifest: str):
    with zipfile.ZipFile(path, "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", manifest)
    return path


BOOT_MANIFEST = ("Manifest-Version: 1.0\nMain-Class: org.springframework.boot.loader.launch.JarLauncher\n"
                 "Start-Class: com.example.Things\nSpring-Boot-Version: {}\n")
