# The harness in a container (Node 20 on Debian 12), for sweeps on Kubernetes or a cluster:
# DejaVu fonts for the charts, Mesa's lavapipe (bookworm-backports) for the WebGPU backend
# without a GPU, the project installed with `npm ci` (which compiles dist/).
#
#   docker build -t memplan-bench .
#   docker run --rm -v "$PWD/results:/app/results" memplan-bench run experiments/table2.json
FROM node:20-bookworm-slim
ENV DEBIAN_FRONTEND=noninteractive ONNXRUNTIME_NODE_INSTALL=skip
WORKDIR /app
COPY scripts/install-vulkan.sh scripts/install-vulkan.sh
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends fonts-dejavu-core ca-certificates \
 && bash scripts/install-vulkan.sh \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin bin
COPY src src
RUN npm ci --no-audit --no-fund
COPY . .
ENTRYPOINT ["node", "bin/memplan.js"]
CMD ["--help"]
