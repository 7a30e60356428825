"""What fetches or installs the files cad reads but does not ship: Debian's lexical resource
packages (`debian`: found at run time, or installed by `make resources`), the spaCy pipelines
(`spacy_models`: installing and loading them), and the opt-in pretrained model files
(`model_files`, the frame; `neuralcoref_files`, `minilm_files`), each a command of its own."""
