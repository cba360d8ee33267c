// Placeholder until the CLI lands in this session.
print("lanes-image: not built yet")
