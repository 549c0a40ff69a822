// placeholder: written with the state store
