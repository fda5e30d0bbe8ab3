"""La versión estática de un widget, hecha con el estado que guardó la ejecución (issue 19).

Un widget de ipywidgets solo se dibuja con un kernel vivo (o con el JavaScript de ipywidgets, que se
bajaría de una CDN). En el sitio, cada salida de widget se reemplaza por HTML hecho aquí con el estado
que nbclient guardó en el notebook (``store_widget_state=True``): los controles con sus valores, el
texto y las imágenes que mostraba. Así se ve lo mismo que vería quien abre la lección, quieto.
"""

from __future__ import annotations

import base64
import html
from typing import Any

TIPO_VISTA = "application/vnd.jupyter.widget-view+json"
TIPO_ESTADO = "application/vnd.jupyter.widget-state+json"
PREFIJO = "IPY_MODEL_"

AVISO = (
    "Versión estática del widget, con los valores con los que se ejecutó la lección. "
    "Para moverlo, abre la lección en JupyterLab o en Colab."
)


def estados(nb) -> dict[str, dict]:
    """``{id de modelo: {"model_name", "state", "buffers"...}}`` guardado en los metadatos del notebook."""
    guardado = nb.get("metadata", {}).get("widgets", {}).get(TIPO_ESTADO, {})
    return dict(guardado.get("state", {}))


def _buffer(modelo: dict, campo: str) -> bytes | None:
    for b in modelo.get("buffers", []):
        if b.get("path") == [campo]:
            return base64.b64decode(b["data"]) if b.get("encoding", "base64") == "base64" else None
    valor = modelo.get("state", {}).get(campo)
    return valor.encode("latin-1") if isinstance(valor, str) and valor else None


def _escapar(valor: Any) -> str:
    return html.escape(str(valor), quote=True)


def _numero(valor: Any) -> str:
    if isinstance(valor, float):
        return f"{valor:.6g}"
    return str(valor)


def _etiqueta(estado: dict) -> str:
    descripcion = estado.get("description") or ""
    return f'<span class="tutor-widget-etiqueta">{_escapar(descripcion)}</span>' if descripcion else ""


def _opcion(estado: dict) -> str:
    etiquetas, indice = estado.get("_options_labels") or [], estado.get("index")
    if isinstance(indice, int) and 0 <= indice < len(etiquetas):
        return str(etiquetas[indice])
    return "" if indice is None else str(indice)


def _control(estado: dict, cuerpo: str) -> str:
    return f'<div class="tutor-widget-control">{_etiqueta(estado)}{cuerpo}</div>'


def html_de(modelo_id: str, todos: dict[str, dict], profundidad: int = 0) -> str:
    """El HTML estático del modelo ``modelo_id`` y de sus hijos."""
    modelo = todos.get(modelo_id.removeprefix(PREFIJO))
    if modelo is None or profundidad > 50:
        return '<em class="tutor-widget-falta">(parte del widget sin estado guardado)</em>'
    nombre = modelo.get("model_name", "")
    estado = modelo.get("state", {})

    def hijos() -> list[str]:
        return [html_de(h, todos, profundidad + 1) for h in estado.get("children", []) if isinstance(h, str)]

    if nombre in ("VBoxModel", "BoxModel", "GridBoxModel"):
        return '<div class="tutor-widget-caja tutor-widget-vertical">' + "".join(hijos()) + "</div>"
    if nombre == "HBoxModel":
        return '<div class="tutor-widget-caja tutor-widget-horizontal">' + "".join(hijos()) + "</div>"
    if nombre in ("AccordionModel", "TabModel", "StackModel"):
        titulos = list(estado.get("titles") or [])
        partes = []
        for i, contenido in enumerate(hijos()):
            titulo = titulos[i] if i < len(titulos) and titulos[i] else f"Sección {i + 1}"
            abierto = " open" if estado.get("selected_index") == i else ""
            partes.append(f"<details{abierto}><summary>{_escapar(titulo)}</summary>{contenido}</details>")
        return '<div class="tutor-widget-caja tutor-widget-vertical">' + "".join(partes) + "</div>"
    if nombre in ("HTMLModel", "HTMLMathModel"):
        # el HTML lo escribió la lección (tutor_lib), no un estudiante: se muestra tal cual
        return _control(estado, f'<div class="tutor-widget-html">{estado.get("value", "")}</div>')
    if nombre == "LabelModel":
        return _control(estado, f"<span>{_escapar(estado.get('value', ''))}</span>")
    if nombre == "ImageModel":
        datos = _buffer(modelo, "value")
        if not datos:
            return '<em class="tutor-widget-falta">(imagen vacía)</em>'
        formato = _escapar(estado.get("format", "png"))
        return (f'<img class="tutor-widget-imagen" alt="{_escapar(estado.get("description") or "gráfica del widget")}"'
                f' src="data:image/{formato};base64,{base64.b64encode(datos).decode()}">')
    if nombre in ("IntSliderModel", "FloatSliderModel", "FloatLogSliderModel"):
        valor = estado.get("value")
        mostrado = 10 ** valor if nombre == "FloatLogSliderModel" and isinstance(valor, (int, float)) else valor
        rango = (f'<input type="range" disabled min="{_escapar(estado.get("min", 0))}" '
                 f'max="{_escapar(estado.get("max", 100))}" step="any" value="{_escapar(valor)}">')
        return _control(estado, f'{rango}<span class="tutor-widget-valor">{_escapar(_numero(mostrado))}</span>')
    if nombre in ("SelectionSliderModel", "DropdownModel", "SelectModel", "RadioButtonsModel",
                  "ToggleButtonsModel"):
        return _control(estado, f'<span class="tutor-widget-valor">{_escapar(_opcion(estado))}</span>')
    if nombre in ("IntTextModel", "FloatTextModel", "BoundedIntTextModel", "BoundedFloatTextModel",
                  "TextModel", "TextareaModel"):
        return _control(estado, f'<span class="tutor-widget-valor">{_escapar(_numero(estado.get("value", "")))}</span>')
    if nombre in ("CheckboxModel", "ToggleButtonModel"):
        return _control(estado, f'<span class="tutor-widget-valor">{"sí" if estado.get("value") else "no"}</span>')
    if nombre in ("FloatProgressModel", "IntProgressModel"):
        barra = (f'<progress max="{_escapar(estado.get("max", 100))}" value="{_escapar(estado.get("value", 0))}">'
                 f"</progress>")
        return _control(estado, barra)
    if nombre == "ButtonModel":
        return f'<button disabled class="tutor-widget-boton">{_escapar(estado.get("description", ""))}</button>'
    if nombre == "OutputModel":
        return '<div class="tutor-widget-salida">' + "".join(_salida(s) for s in estado.get("outputs", [])) + "</div>"
    return f'<em class="tutor-widget-falta">(control {_escapar(nombre)} sin versión estática)</em>'


def _salida(salida: dict) -> str:
    datos = salida.get("data", {})
    if "text/html" in datos:
        return "".join(datos["text/html"])
    if "image/png" in datos:
        return f'<img class="tutor-widget-imagen" alt="gráfica" src="data:image/png;base64,{"".join(datos["image/png"])}">'
    texto = salida.get("text") or datos.get("text/plain") or ""
    return f"<pre>{_escapar(''.join(texto))}</pre>" if texto else ""


def volver_estaticos(nb) -> int:
    """Reemplaza en ``nb`` cada salida de widget por su HTML estático; devuelve cuántas reemplazó.

    Borra también el estado de los widgets de los metadatos: con él, MyST-NB cargaría el JavaScript
    de ipywidgets desde una CDN.
    """
    todos = estados(nb)
    cambiadas = 0
    for celda in nb.get("cells", []):
        for salida in celda.get("outputs", []):
            vista = salida.get("data", {}).get(TIPO_VISTA)
            if not vista:
                continue
            cuerpo = html_de(str(vista.get("model_id", "")), todos)
            salida["data"] = {
                "text/html": f'<div class="tutor-widget">{cuerpo}<p class="tutor-widget-aviso">{_escapar(AVISO)}</p></div>',
                "text/plain": AVISO,
            }
            cambiadas += 1
    nb.get("metadata", {}).pop("widgets", None)
    return cambiadas
