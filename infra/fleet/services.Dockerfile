# syntax=docker/dockerfile:1
#
# The fleet test's backing services, built here from Debian's packages (and s3rver from npm) because
# no image registry is reachable from the machine that runs `npm run test:fleet`. Users run the
# official images of docker-compose.yml instead (PostgreSQL, Redis, MinIO, nginx); these stand in for
# them, with the same ports, the same environment variables and the same health checks.
#
#   docker build -f infra/fleet/services.Dockerfile --target postgres --build-arg BASE_IMAGE=octavo-base:bookworm infra/fleet

ARG BASE_IMAGE=debian:bookworm-slim

# ---------------------------------------------------------------------------------------------
# postgres: Debian's PostgreSQL 15, initialised on first start from POSTGRES_USER, POSTGRES_PASSWORD
# and POSTGRES_DB as the official image does (infra/fleet/postgres-entrypoint.sh).
FROM ${BASE_IMAGE} AS postgres
RUN apt-get update \
  && apt-get install -y --no-install-recommends postgresql-15 \
  && rm -rf /var/lib/apt/lists/*
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
  PGDATA=/var/lib/postgresql/data
RUN mkdir -p "$PGDATA" /run/postgresql && chown -R postgres:postgres /var/lib/postgresql /run/postgresql
USER postgres
EXPOSE 5432
# As the official image: SIGINT is PostgreSQL's fast shutdown (SIGTERM's smart one waits for every client).
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]

# ---------------------------------------------------------------------------------------------
# redis: Debian's redis-server; the command line comes from docker-compose.yml.
FROM ${BASE_IMAGE} AS redis
RUN apt-get update \
  && apt-get install -y --no-install-recommends redis-server redis-tools \
  && rm -rf /var/lib/apt/lists/*
RUN mkdir -p /data && chown redis:redis /data
WORKDIR /data
USER redis
EXPOSE 6379
# The official image answers on every interface without protected mode; Debian's build needs telling
# (infra/fleet/compose.test.yml's command does).
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--dir", "/data"]

# ---------------------------------------------------------------------------------------------
# s3: s3rver (the S3 server octavo's own tests use) on Debian's Node.js, standing in for MinIO.
FROM ${BASE_IMAGE} AS s3
RUN apt-get update \
  && apt-get install -y --no-install-recommends nodejs npm ca-certificates \
  && rm -rf /var/lib/apt/lists/*
ARG S3RVER_VERSION=3.7.1
# BUILD_CA_CERT: on a network that intercepts TLS, its CA certificate (PEM text), trusted for this
# download only and removed again, as in infra/docker/Dockerfile.
ARG BUILD_CA_CERT=
RUN if [ -n "$BUILD_CA_CERT" ]; then \
    printf '%s\n' "$BUILD_CA_CERT" >/usr/local/share/ca-certificates/build-ca.crt && update-ca-certificates; \
  fi \
  && NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    npm install --global --no-audit --no-fund "s3rver@${S3RVER_VERSION}" \
  && npm cache clean --force \
  && rm -f /usr/local/share/ca-certificates/build-ca.crt && update-ca-certificates --fresh >/dev/null
RUN useradd --uid 10002 --create-home s3 && mkdir -p /data && chown s3 /data
USER s3
EXPOSE 9000
CMD ["s3rver", "--address", "0.0.0.0", "--port", "9000", "--directory", "/data", "--configure-bucket", "octavo", "--no-vhost-buckets"]

# ---------------------------------------------------------------------------------------------
# proxy: Debian's nginx with infra/docker/nginx.conf, standing in for nginx:alpine.
FROM ${BASE_IMAGE} AS proxy
RUN apt-get update \
  && apt-get install -y --no-install-recommends nginx wget \
  && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/*
EXPOSE 8080
CMD ["nginx", "-g", "daemon off;"]
