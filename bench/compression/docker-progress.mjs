// Replays what `docker pull` (or `docker build` with the classic builder) writes to a terminal: one
// line per layer, each redrawn in place as it progresses, the way docker's jsonmessage package does it
// (cursor up to the layer's line, erase the line, carriage return, the new text, cursor back down).
// Deterministic: the same bytes every run.
const ESC = "\u001b"
const mode = process.argv[2] ?? "pull"
let seed = 7
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
const out = []
const write = (text) => out.push(text)

const bar = (done, total) => {
  const width = 50
  const filled = Math.floor((done / total) * width)
  return `[${"=".repeat(Math.max(0, filled - 1))}${filled > 0 ? ">" : ""}${" ".repeat(width - filled)}]`
}
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)}MB`

if (mode === "pull") {
  const layers = Array.from(
    { length: 9 },
    (_, i) => ({
      id: (0x1a2b3c4d5e6f + i * 7919).toString(16).slice(0, 12),
      size: Math.floor(2e6 + random() * 9e7),
      done: 0
    })
  )
  write("Using default tag: latest\nlatest: Pulling from library/node\n")
  for (const layer of layers) write(`${layer.id}: Pulling fs layer \n`)
  const redraw = (index, text) => {
    const up = layers.length - index
    write(`${ESC}[${up}A${ESC}[2K\r${layers[index].id}: ${text}\n${up > 1 ? `${ESC}[${up - 1}B` : ""}`)
  }
  let active = true
  while (active) {
    active = false
    layers.forEach((layer, index) => {
      if (layer.done >= layer.size) return
      active = true
      layer.done = Math.min(layer.size, layer.done + Math.floor(layer.size / (8 + random() * 20)))
      redraw(
        index,
        layer.done >= layer.size
          ? "Download complete "
          : `Downloading ${bar(layer.done, layer.size)}  ${mb(layer.done)}/${mb(layer.size)}`
      )
    })
  }
  layers.forEach((layer, index) => {
    for (let step = 1; step <= 6; step++) {
      redraw(index, `Extracting ${bar(step, 6)}  ${mb((layer.size * step) / 6)}/${mb(layer.size)}`)
    }
    redraw(index, "Pull complete ")
  })
  write(
    "Digest: sha256:4f2a7c1e9b8d3a6f5e0c2b1d8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f\nStatus: Downloaded newer image for node:latest\ndocker.io/library/node:latest\n"
  )
} else {
  write("Sending build context to Docker daemon  2.048kB\r")
  for (let kb = 100; kb <= 48000; kb += 2300) {
    write(`Sending build context to Docker daemon  ${(kb / 1000).toFixed(2)}MB\r`)
  }
  write("\n")
  const steps = [
    "FROM node:24-slim",
    "WORKDIR /app",
    "COPY package*.json ./",
    "RUN npm ci --omit=dev",
    "COPY . .",
    "RUN npm run build",
    "CMD [\"node\", \"dist/main.js\"]"
  ]
  steps.forEach((step, index) => {
    write(`Step ${index + 1}/${steps.length} : ${step}\n`)
    if (step.startsWith("RUN npm ci")) {
      for (let tick = 0; tick < 40; tick++) {
        write(
          `${ESC}[1G${ESC}[0K${"⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"[tick % 10]} reify:${
            ["ms", "debug", "semver", "undici"][tick % 4]
          }: timing reifyNode:node_modules/${["ms", "debug", "semver", "undici"][tick % 4]} Completed in ${tick * 3}ms`
        )
      }
      write(`${ESC}[1G${ESC}[0K\nadded 214 packages in 9s\n`)
    }
    write(` ---> Running in ${(0xabcdef123 + index).toString(16)}\n ---> ${(0x1234abcd + index * 31).toString(16)}\n`)
  })
  write("Successfully built 9f8e7d6c5b4a\nSuccessfully tagged svc-gateway:latest\n")
}
process.stdout.write(out.join(""))
