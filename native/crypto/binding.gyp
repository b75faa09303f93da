{
  "targets": [
    {
      "target_name": "pipefill_crypto",
      "sources": ["src/addon.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-std=c11", "-Wall", "-Wextra", "-O2"]
    }
  ]
}
