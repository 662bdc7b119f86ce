// vdla keygen STEM: an Ed25519 key pair for signing artifacts (STEM.key,
// STEM.pub). vdla sign ARTIFACT --key STEM.key [-o OUT]: signs an artifact
// file (docs/artifact.md, "Signed artifacts").
#include <fstream>
#include <iostream>
#include <iterator>

#include "cli.h"
#include "vdla/hw/error.h"
#include "vdla/runtime/artifact.h"
#include "vdla/runtime/artifact_signature.h"

namespace vdla::cli {

int keygenCommand(const std::vector<std::string>& args) {
  po::options_description options("vdla keygen options");
  options.add_options()("stem", po::value<std::string>()->required(), "write STEM.key (secret) and STEM.pub (public)")(
      "force", "replace existing key files");
  po::positional_options_description positional;
  positional.add("stem", 1);
  po::variables_map vm;
  if (!parseArgs("vdla keygen STEM [--force]", args, options, positional, vm)) return 0;
  const std::string stem = vm["stem"].as<std::string>();
  if (!vm.count("force"))
    for (const char* ext : {".key", ".pub"})
      if (std::ifstream(stem + ext)) throw Error(stem + ext + ": exists; give --force to replace it");
  const rt::KeyPair keys = rt::generateKeyPair();
  rt::saveKeyPair(keys, stem);
  std::cout << "wrote " << stem << ".key (secret: keep it to the build machine) and " << stem
            << ".pub (copy it into the trusted-keys directory of each deployment)\n"
            << "public key " << rt::publicKeyHex(keys.public_key) << "\n";
  return 0;
}

int signCommand(const std::vector<std::string>& args) {
  po::options_description options("vdla sign options");
  options.add_options()("artifact", po::value<std::string>()->required(), "artifact file to sign")(
      "key", po::value<std::string>()->required(), "secret key file (vdla keygen)")(
      "output,o", po::value<std::string>(), "signed file to write (default: sign in place)");
  po::positional_options_description positional;
  positional.add("artifact", 1);
  po::variables_map vm;
  if (!parseArgs("vdla sign ARTIFACT --key KEY [-o OUT]", args, options, positional, vm)) return 0;
  const std::string path = vm["artifact"].as<std::string>();
  const std::vector<uint8_t> bytes = readFile(path);
  // Only a well-formed artifact gets a signature.
  rt::deserializeArtifact(bytes.data(), rt::artifactPayloadSize(bytes.data(), bytes.size()), path);
  const std::vector<uint8_t> signed_bytes =
      rt::signArtifactBytes(bytes.data(), bytes.size(), rt::loadSecretKey(vm["key"].as<std::string>()));
  const std::string out = vm.count("output") ? vm["output"].as<std::string>() : path;
  writeFile(out, signed_bytes);
  std::cout << "signed " << out << "\n";
  return 0;
}

}  // namespace vdla::cli
