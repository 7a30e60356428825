Mi hermana va a la escuela.
Su escuela está detrás de la catedral.
